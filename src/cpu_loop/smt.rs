//! The SMT probe: siblings of one core against two cores (extended report). (Being written.)
