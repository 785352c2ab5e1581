//! The printed forms that the JSON document stores as text, each a
//! `render` and `parse` pair: the model's serde views, the text renderer
//! and the readers all call these, so each form has one definition, and
//! each pair is tested together (`parse(&render(x)) == x`).
//!
//! They import the data they print and nothing else.

pub mod budget;
pub mod cpuinfo;
pub mod device_details;
pub mod spread;
pub mod stack;
