//! The core's tenancy on a finished CPU loop or memory step: its trials'
//! samples classed alone or shared against one level, the step's own
//! figures, and the shared mark ([`crate::conditions::tenancy`]).

use crate::conditions::mark::InTrials;
use crate::conditions::tenancy::{self, Tenancy, Unjudged};
use crate::conditions::{Mark, MarkKind, Measured};
use crate::model::Repeated;
use crate::samples::core::CoreSamples;
use crate::samples::Samples;

/// What the step's figure and conditions give the judge.
pub(super) trait Tenanted {
    /// The figure's samples.
    fn samples(&self) -> &Samples;
    /// Where the tenancy goes.
    fn tenancy_mut(&mut self) -> &mut Option<Tenancy>;
}

impl Tenanted for crate::model::CpuTrial {
    fn samples(&self) -> &Samples {
        &self.figure.samples
    }
    fn tenancy_mut(&mut self) -> &mut Option<Tenancy> {
        &mut self.conditions.tenancy
    }
}

impl Tenanted for crate::model::MemoryTrial {
    fn samples(&self) -> &Samples {
        &self.figure.samples
    }
    fn tenancy_mut(&mut self) -> &mut Option<Tenancy> {
        &mut self.conditions.tenancy
    }
}

/// The core probe's readings of `step`: every trial's, or the step's own
/// without trials.
pub(super) fn readings<F, C>(step: &Repeated<Measured<F, C>>) -> Vec<&CoreSamples>
where
    Measured<F, C>: Tenanted,
{
    if step.trials.is_empty() {
        step.step.samples().core.iter().collect()
    } else {
        step.trials
            .iter()
            .filter_map(|t| t.step.samples().core.as_ref())
            .collect()
    }
}

/// Classes `step`'s samples (every trial's against one level): the loop's
/// `bound` when the run's best samples `reached` it, else the step's
/// best; shared below `shared_below` of the level; `unjudged` says why
/// not to. Steps measured without the probe (the stand-in, sampling off)
/// are left as they are.
pub(super) fn judge<F, C>(
    step: &mut Repeated<Measured<F, C>>,
    (bound, reached): (Option<f64>, bool),
    shared_below: f64,
    unjudged: Option<Unjudged>,
) where
    Measured<F, C>: Tenanted,
{
    let has_core = |m: &Measured<F, C>| m.samples().core.is_some();
    if !has_core(&step.step) && !step.trials.iter().any(|t| has_core(&t.step)) {
        return;
    }
    let unjudged =
        unjudged.or((!crate::samples::core::CALIBRATED).then_some(Unjudged::NoCycleReference));
    let level = match unjudged {
        Some(why) => Err(why),
        None => tenancy::level(&readings(step), bound, reached, shared_below),
    };
    let class = |m: &Measured<F, C>| match &level {
        Ok(l) => m
            .samples()
            .core
            .as_ref()
            .map(|c| tenancy::classify(&m.samples().samples, c, l)),
        Err(why) => Some(Tenancy::unjudged(*why)),
    };
    for t in &mut step.trials {
        *t.step.tenancy_mut() = class(&t.step);
    }
    let of = step.trials.len() as u32;
    let verdict = class(&step.step);
    let mark = verdict.as_ref().and_then(tenancy::marked);
    *step.step.tenancy_mut() = verdict;
    if let Some((percent, loss_percent)) = mark {
        insert_mark(
            &mut step.step,
            Mark::Shared {
                percent,
                loss_percent,
            },
            of,
        );
    }
}

/// Puts `mark` among the step's marks in their order ([`MarkKind::ALL`]),
/// earned by all `of` trials (the step's figure is its share of them all).
fn insert_mark<F, C>(m: &mut Measured<F, C>, mark: Mark, of: u32) {
    let rank = |k: MarkKind| MarkKind::ALL.iter().position(|x| *x == k);
    let at = m
        .marks
        .iter()
        .position(|x| rank(x.kind()) > rank(mark.kind()))
        .unwrap_or(m.marks.len());
    // A drift mark, pushed last, has no count: the counts stop before it.
    if of > 0 && at <= m.marks_in_trials.len() {
        m.marks_in_trials.insert(at, InTrials { trials: of, of });
    }
    m.marks.insert(at, mark);
}
