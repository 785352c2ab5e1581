//! Frequency scaling and thermal throttling, read, not guessed (a VM
//! usually has none of them: every reader then returns `None` or empty):
//!
//! * the cpufreq policies of `/sys/devices/system/cpu/cpufreq/policyN/`
//!   (older kernels: `cpuN/cpufreq/`): driver, governor,
//!   `scaling_min_freq`/`scaling_max_freq` against `cpuinfo_min_freq`/
//!   `cpuinfo_max_freq`, `energy_performance_preference`, and boost
//!   (`cpufreq/boost`, a policy's own `boost`, or intel_pstate's
//!   `no_turbo`), as [`Cpufreq`] with the [`Cpufreq::findings`] to warn of;
//! * each policy's `stats/time_in_state` (kHz, 10 ms units), read around a
//!   CPU step: [`TimeInState`];
//! * the CPUs' `thermal_throttle/{core,package}_throttle_count`, read
//!   around every timed step: [`ThermalCounts`].

use serde::{Deserialize, Serialize};

use crate::Sysroot;

const CPU_DIR: &str = "/sys/devices/system/cpu";

/// One cpufreq policy: the CPUs that share a clock and its settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpufreqPolicy {
    /// The directory the policy was read from (`/sys/devices/system/cpu/cpufreq/policy0`).
    pub dir: String,
    /// The CPUs it covers (`affected_cpus`, else the CPU of the directory).
    pub cpus: Vec<u32>,
    /// `scaling_driver` (`intel_pstate`, `acpi-cpufreq`, `amd-pstate-epp`, `cpufreq-dt`).
    pub driver: Option<String>,
    /// `scaling_governor` (`performance`, `powersave`, `schedutil`, `ondemand`).
    pub governor: Option<String>,
    /// `scaling_min_freq`, kHz.
    pub scaling_min_khz: Option<u64>,
    /// `scaling_max_freq`, kHz: the highest clock the governor may pick.
    pub scaling_max_khz: Option<u64>,
    /// `cpuinfo_min_freq`, kHz: the hardware's lowest.
    pub cpuinfo_min_khz: Option<u64>,
    /// `cpuinfo_max_freq`, kHz: the hardware's highest (with boost, where
    /// the driver counts it).
    pub cpuinfo_max_khz: Option<u64>,
    /// `energy_performance_preference` (intel_pstate, amd-pstate-epp).
    pub energy_performance_preference: Option<String>,
    /// The policy's own `boost` file (amd-pstate since Linux 6.11).
    pub boost: Option<bool>,
}

/// The host's frequency scaling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpufreq {
    /// Every policy, in directory order.
    pub policies: Vec<CpufreqPolicy>,
    /// `/sys/devices/system/cpu/cpufreq/boost` (acpi-cpufreq, cpufreq-dt):
    /// whether the CPUs may clock above their base.
    pub boost: Option<bool>,
    /// `/sys/devices/system/cpu/intel_pstate/no_turbo`: true when turbo is off.
    pub intel_no_turbo: Option<bool>,
    /// `/sys/devices/system/cpu/intel_pstate/status` (`active`, `passive`).
    pub intel_pstate_status: Option<String>,
    /// `/sys/devices/system/cpu/amd_pstate/status` (`active`, `passive`, `guided`).
    pub amd_pstate_status: Option<String>,
}

/// Something in the frequency settings that lowers or unsettles a CPU
/// figure, with the file that says so and what to write to change it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The file read (full path, sysroot included).
    pub path: String,
    /// What it says, in a sentence.
    pub what: String,
    /// What to write there (as root) for steady, full-speed figures.
    pub fix: String,
}

fn read_bool(sys: &Sysroot, p: &str) -> Option<bool> {
    match sys.read_trimmed(p)?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

fn read_khz(sys: &Sysroot, p: &str) -> Option<u64> {
    sys.read_trimmed(p)?.parse().ok()
}

/// Reads the policy in `dir` (an absolute system path); `cpu` is the CPU
/// of a per-CPU directory, when it is one.
fn read_policy(sys: &Sysroot, dir: &str, cpu: Option<u32>) -> CpufreqPolicy {
    let f = |name: &str| format!("{dir}/{name}");
    let cpus = sys
        .read_trimmed(f("affected_cpus"))
        .map(|s| {
            s.split_whitespace()
                .filter_map(|c| c.parse().ok())
                .collect()
        })
        .unwrap_or_else(|| cpu.into_iter().collect());
    CpufreqPolicy {
        dir: dir.to_string(),
        cpus,
        driver: sys.read_trimmed(f("scaling_driver")),
        governor: sys.read_trimmed(f("scaling_governor")),
        scaling_min_khz: read_khz(sys, &f("scaling_min_freq")),
        scaling_max_khz: read_khz(sys, &f("scaling_max_freq")),
        cpuinfo_min_khz: read_khz(sys, &f("cpuinfo_min_freq")),
        cpuinfo_max_khz: read_khz(sys, &f("cpuinfo_max_freq")),
        energy_performance_preference: sys.read_trimmed(f("energy_performance_preference")),
        boost: read_bool(sys, &f("boost")),
    }
}

/// The cpufreq policies of the host; `None` when it has none (most VMs).
pub fn read_cpufreq(sys: &Sysroot) -> Option<Cpufreq> {
    let mut policies = Vec::new();
    let top = format!("{CPU_DIR}/cpufreq");
    let mut names: Vec<String> = sys
        .list_dir(&top)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.starts_with("policy") && n[6..].parse::<u32>().is_ok())
        .collect();
    names.sort_by_key(|n| n[6..].parse::<u32>().unwrap_or(0));
    for n in names {
        let dir = format!("{top}/{n}");
        let p = read_policy(sys, &dir, n[6..].parse().ok());
        if p.driver.is_some() || p.governor.is_some() || p.cpuinfo_max_khz.is_some() {
            policies.push(p);
        }
    }
    if policies.is_empty() {
        // Before Linux 4.3 (and in some dumps) only cpuN/cpufreq exists.
        let mut cpus: Vec<u32> = sys
            .list_dir(CPU_DIR)
            .unwrap_or_default()
            .iter()
            .filter_map(|n| n.strip_prefix("cpu")?.parse().ok())
            .collect();
        cpus.sort_unstable();
        let mut seen: Vec<u32> = Vec::new();
        for c in cpus {
            if seen.contains(&c) {
                continue;
            }
            let dir = format!("{CPU_DIR}/cpu{c}/cpufreq");
            if !sys.exists(&dir) {
                continue;
            }
            let p = read_policy(sys, &dir, Some(c));
            if p.driver.is_some() || p.governor.is_some() || p.cpuinfo_max_khz.is_some() {
                seen.extend(&p.cpus);
                policies.push(p);
            }
        }
    }
    let boost = read_bool(sys, &format!("{top}/boost"));
    let intel_no_turbo = read_bool(sys, &format!("{CPU_DIR}/intel_pstate/no_turbo"));
    let intel_pstate_status = sys.read_trimmed(format!("{CPU_DIR}/intel_pstate/status"));
    let amd_pstate_status = sys.read_trimmed(format!("{CPU_DIR}/amd_pstate/status"));
    if policies.is_empty() && boost.is_none() && intel_no_turbo.is_none() {
        return None;
    }
    Some(Cpufreq {
        policies,
        boost,
        intel_no_turbo,
        intel_pstate_status,
        amd_pstate_status,
    })
}

/// Governors that clock up as soon as a CPU is loaded: `performance`
/// holds the maximum, `schedutil` follows the scheduler's utilisation at
/// once. The others (`powersave`, `ondemand`, `conservative`,
/// `userspace`) lag behind a load or cap it, so a figure depends on the
/// load's history (the Phoronix Test Suite warns about them too).
pub const STEADY_GOVERNORS: [&str; 2] = ["performance", "schedutil"];

/// A compact CPU list (`0-3,8`).
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// Parses what [`cpu_list`] writes (`0-3,8`; empty for none): the CPUs in
/// the order written. `None` for anything else.
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if a >= b {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// A frequency in kHz as the settings line prints it: whole MHz, or `?`.
fn mhz_word(khz: Option<u64>) -> String {
    khz.map_or_else(|| "?".to_string(), |k| (k / 1000).to_string())
}

/// A `mhz_word` read back, in kHz.
fn khz_of(word: &str) -> Option<Option<u64>> {
    match word {
        "?" => Some(None),
        w => Some(Some(w.parse::<u64>().ok()?.checked_mul(1000)?)),
    }
}

/// `?` for an unknown word, else the word.
fn word_of(word: &str) -> Option<String> {
    (word != "?").then(|| word.to_string())
}

impl Cpufreq {
    /// The settings as one line of text (`acpi-cpufreq ondemand 1200-2601
    /// MHz on CPU(s) 0-1; boost off`): per distinct setting, with the CPUs
    /// it covers, the driver, governor, `scaling_min_freq`-`scaling_max_freq`
    /// (`(of 5759)` when the hardware's maximum, `cpuinfo_max_freq`, is
    /// higher), EPP, a policy's boost when off; then the global boost or
    /// turbo when off. `None` when there is nothing to say. The one wording
    /// of the plan's and `-x`'s `CPU freq` line, read back by
    /// [`Cpufreq::parse_settings`].
    pub fn settings(&self) -> Option<String> {
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        for p in &self.policies {
            let mut s = format!(
                "{} {} {}-{} MHz",
                p.driver.as_deref().unwrap_or("?"),
                p.governor.as_deref().unwrap_or("?"),
                mhz_word(p.scaling_min_khz),
                mhz_word(p.scaling_max_khz)
            );
            // Compared as printed (whole MHz), so that the line reads back.
            let mhz = |k: Option<u64>| k.map(|k| k / 1000);
            if mhz(p.scaling_max_khz) < mhz(p.cpuinfo_max_khz) {
                s.push_str(&format!(" (of {})", mhz_word(p.cpuinfo_max_khz)));
            }
            if let Some(e) = &p.energy_performance_preference {
                s.push_str(&format!(", EPP {e}"));
            }
            if p.boost == Some(false) {
                s.push_str(", boost off");
            }
            match groups.iter_mut().find(|(g, _)| *g == s) {
                Some((_, cpus)) => cpus.extend(&p.cpus),
                None => groups.push((s, p.cpus.clone())),
            }
        }
        let mut parts: Vec<String> = groups
            .into_iter()
            .map(|(s, mut cpus)| {
                cpus.sort_unstable();
                format!("{s} on CPU(s) {}", cpu_list(&cpus))
            })
            .collect();
        if self.boost == Some(false) {
            parts.push("boost off".into());
        }
        if self.intel_no_turbo == Some(true) {
            parts.push("turbo off".into());
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The settings [`Cpufreq::settings`] printed, read back: one policy
    /// per distinct setting (its directory empty), what the line does not
    /// print `None` (the hardware's maximum when not above the scaling
    /// maximum, the hardware's minimum, the pstate status). `None` when the
    /// text is something else.
    pub fn parse_settings(text: &str) -> Option<Cpufreq> {
        let mut f = Cpufreq::default();
        for part in text.split("; ") {
            match part {
                "boost off" => f.boost = Some(false),
                "turbo off" => f.intel_no_turbo = Some(true),
                _ => f.policies.push(parse_policy(part)?),
            }
        }
        Some(f)
    }
}

/// `amd-pstate-epp performance 400-3000 MHz (of 5759), EPP performance,
/// boost off on CPU(s) 0-1`.
fn parse_policy(text: &str) -> Option<CpufreqPolicy> {
    let (rest, cpus) = text.rsplit_once(" on CPU(s) ")?;
    let mut p = CpufreqPolicy {
        cpus: parse_cpu_list(cpus)?,
        ..CpufreqPolicy::default()
    };
    let rest = match rest.strip_suffix(", boost off") {
        Some(r) => {
            p.boost = Some(false);
            r
        }
        None => rest,
    };
    let rest = match rest.split_once(", EPP ") {
        Some((r, e)) if !e.is_empty() && !e.contains(' ') => {
            p.energy_performance_preference = Some(e.to_string());
            r
        }
        Some(_) => return None,
        None => rest,
    };
    let w: Vec<&str> = rest.split(' ').collect();
    let (min, max) = w.get(2)?.split_once('-')?;
    match w.as_slice() {
        [_, _, _, "MHz"] => {}
        [_, _, _, "MHz", "(of", hw] => p.cpuinfo_max_khz = khz_of(hw.strip_suffix(')')?)?,
        _ => return None,
    }
    p.driver = word_of(w[0]);
    p.governor = word_of(w[1]);
    p.scaling_min_khz = khz_of(min)?;
    p.scaling_max_khz = khz_of(max)?;
    Some(p)
}

impl Cpufreq {
    /// What lowers or unsettles the CPU figures, one finding per file:
    /// a governor that is not [`STEADY_GOVERNORS`], boost or turbo off,
    /// `scaling_max_freq` below `cpuinfo_max_freq`. Paths are the
    /// sysroot's.
    pub fn findings(&self, sys: &Sysroot) -> Vec<Finding> {
        let full = |p: &str| sys.path(p).display().to_string();
        let mut out = Vec::new();
        for p in &self.policies {
            let cpus = cpu_list(&p.cpus);
            if let Some(g) = &p.governor {
                if !STEADY_GOVERNORS.contains(&g.as_str()) {
                    out.push(Finding {
                        path: full(&format!("{}/scaling_governor", p.dir)),
                        what: format!(
                            "CPU(s) {cpus} use the {g} governor, which lags behind a load or caps it"
                        ),
                        fix: "performance".into(),
                    });
                }
            }
            if let (Some(max), Some(hw)) = (p.scaling_max_khz, p.cpuinfo_max_khz) {
                if max < hw {
                    out.push(Finding {
                        path: full(&format!("{}/scaling_max_freq", p.dir)),
                        what: format!(
                            "CPU(s) {cpus} are capped at {} MHz, below their {} MHz maximum",
                            max / 1000,
                            hw / 1000
                        ),
                        fix: hw.to_string(),
                    });
                }
            }
            if p.boost == Some(false) {
                out.push(Finding {
                    path: full(&format!("{}/boost", p.dir)),
                    what: format!("boost is off for CPU(s) {cpus}"),
                    fix: "1".into(),
                });
            }
        }
        if self.boost == Some(false) {
            out.push(Finding {
                path: full(&format!("{CPU_DIR}/cpufreq/boost")),
                what: "boost is off: the CPUs stay at their base clock".into(),
                fix: "1".into(),
            });
        }
        if self.intel_no_turbo == Some(true) {
            out.push(Finding {
                path: full(&format!("{CPU_DIR}/intel_pstate/no_turbo")),
                what: "turbo is off (no_turbo = 1): the CPUs stay at their base clock".into(),
                fix: "0".into(),
            });
        }
        out
    }

    /// The policies covering any of `cpus`.
    pub fn policies_of<'a>(&'a self, cpus: &'a [u32]) -> impl Iterator<Item = &'a CpufreqPolicy> {
        self.policies
            .iter()
            .filter(move |p| p.cpus.iter().any(|c| cpus.contains(c)))
    }
}

/// `stats/time_in_state` of one policy: (frequency kHz, time in 10 ms
/// units) per line. Malformed lines are skipped.
pub fn parse_time_in_state(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
        .collect()
}

/// The time the policies of a step spent at each frequency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeInState {
    /// Per policy directory: (kHz, time units) lines.
    pub policies: Vec<(String, Vec<(u64, u64)>)>,
}

impl TimeInState {
    /// Reads `stats/time_in_state` of each policy covering `cpus`; empty
    /// when the driver keeps no statistics (intel_pstate, amd-pstate, VMs).
    pub fn read(sys: &Sysroot, freq: &Cpufreq, cpus: &[u32]) -> TimeInState {
        TimeInState {
            policies: freq
                .policies_of(cpus)
                .filter_map(|p| {
                    let t = sys
                        .read_to_string(format!("{}/stats/time_in_state", p.dir))
                        .ok()?;
                    let v = parse_time_in_state(&t);
                    (!v.is_empty()).then(|| (p.dir.clone(), v))
                })
                .collect(),
        }
    }

    /// Reads `stats/time_in_state` of every policy under
    /// `/sys/devices/system/cpu/cpufreq/` that covers one of `cpus`
    /// (without reading the rest of the policy): what a step's sampler
    /// reads around it.
    pub fn read_all(sys: &Sysroot, cpus: &[u32]) -> TimeInState {
        let top = format!("{CPU_DIR}/cpufreq");
        let mut policies = Vec::new();
        for n in sys.list_dir(&top).unwrap_or_default() {
            if !n.starts_with("policy") {
                continue;
            }
            let dir = format!("{top}/{n}");
            let Ok(t) = sys.read_to_string(format!("{dir}/stats/time_in_state")) else {
                continue;
            };
            let covers = sys
                .read_trimmed(format!("{dir}/affected_cpus"))
                .is_none_or(|s| {
                    s.split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok())
                        .any(|c| cpus.contains(&c))
                });
            let v = parse_time_in_state(&t);
            if covers && !v.is_empty() {
                policies.push((dir, v));
            }
        }
        TimeInState { policies }
    }

    /// The share of the time between `self` (earlier) and `later` spent
    /// below each policy's highest listed frequency, percent, over all
    /// policies read both times; `None` when none was, or no time passed.
    pub fn below_max_percent(&self, later: &TimeInState) -> Option<f64> {
        let (mut below, mut total) = (0u64, 0u64);
        for (dir, a) in &self.policies {
            let Some((_, b)) = later.policies.iter().find(|(d, _)| d == dir) else {
                continue;
            };
            let top = b.iter().map(|(f, _)| *f).max().unwrap_or(0);
            for (f, t) in b {
                let before = a.iter().find(|(g, _)| g == f).map_or(0, |(_, t)| *t);
                let d = t.saturating_sub(before);
                total += d;
                if *f < top {
                    below += d;
                }
            }
        }
        (total > 0).then(|| 100.0 * below as f64 / total as f64)
    }
}

/// The thermal throttling counters of the CPUs (x86 `thermal_throttle`):
/// how often a core or its package crossed its thermal limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThermalCounts {
    /// Sum of `core_throttle_count` over the CPUs read.
    pub core: u64,
    /// Sum of `package_throttle_count` over the CPUs read (every CPU of a
    /// package repeats its package's count: only a change means anything).
    pub package: u64,
}

impl ThermalCounts {
    /// Reads the counters of `cpus`; `None` when no CPU has them.
    pub fn read(sys: &Sysroot, cpus: &[u32]) -> Option<ThermalCounts> {
        let mut found = false;
        let mut c = ThermalCounts::default();
        for cpu in cpus {
            let dir = format!("{CPU_DIR}/cpu{cpu}/thermal_throttle");
            if let Some(n) = read_khz(sys, &format!("{dir}/core_throttle_count")) {
                c.core += n;
                found = true;
            }
            if let Some(n) = read_khz(sys, &format!("{dir}/package_throttle_count")) {
                c.package += n;
                found = true;
            }
        }
        found.then_some(c)
    }

    /// The events between `self` (earlier) and `later`: core plus package.
    pub fn events_since(&self, later: &ThermalCounts) -> u64 {
        later.core.saturating_sub(self.core) + later.package.saturating_sub(self.package)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_in_state_lines() {
        let t = "3501000 120\n3500000 10\n2000000 300\nbad\n800000 x\n";
        assert_eq!(
            parse_time_in_state(t),
            vec![(3501000, 120), (3500000, 10), (2000000, 300)]
        );
    }

    #[test]
    fn below_max_between_two_reads() {
        let a = TimeInState {
            policies: vec![("p0".into(), vec![(3000000, 100), (1000000, 50)])],
        };
        let b = TimeInState {
            policies: vec![("p0".into(), vec![(3000000, 130), (1000000, 140)])],
        };
        assert_eq!(a.below_max_percent(&b), Some(75.0));
        assert_eq!(a.below_max_percent(&a), None, "no time passed");
        assert_eq!(TimeInState::default().below_max_percent(&b), None);
    }

    #[test]
    fn compact_cpu_lists() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8]), "0-3,8");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "");
    }

    #[test]
    fn thermal_events_are_core_plus_package_moves() {
        let a = ThermalCounts {
            core: 5,
            package: 10,
        };
        let b = ThermalCounts {
            core: 7,
            package: 13,
        };
        assert_eq!(a.events_since(&b), 5);
        assert_eq!(b.events_since(&a), 0, "a counter going back counts 0");
    }

    #[test]
    fn the_settings_line_reads_back() {
        let policy = |cpus: Vec<u32>, max: u64| CpufreqPolicy {
            dir: "/sys/devices/system/cpu/cpufreq/policy0".into(),
            cpus,
            driver: Some("amd-pstate-epp".into()),
            governor: Some("performance".into()),
            scaling_min_khz: Some(400_000),
            scaling_max_khz: Some(max),
            cpuinfo_min_khz: Some(400_000),
            cpuinfo_max_khz: Some(5_759_000),
            energy_performance_preference: Some("performance".into()),
            boost: Some(false),
        };
        let f = Cpufreq {
            policies: vec![
                policy(vec![0], 3_000_000),
                policy(vec![1], 3_000_000),
                policy(vec![4, 5], 5_759_000),
            ],
            boost: None,
            intel_no_turbo: Some(true),
            intel_pstate_status: Some("active".into()),
            amd_pstate_status: None,
        };
        let line = f.settings().unwrap();
        assert_eq!(
            line,
            "amd-pstate-epp performance 400-3000 MHz (of 5759), EPP performance, boost off on CPU(s) 0-1; \
             amd-pstate-epp performance 400-5759 MHz, EPP performance, boost off on CPU(s) 4-5; turbo off"
        );
        let read = Cpufreq::parse_settings(&line).unwrap();
        assert_eq!(read.settings().unwrap(), line);
        // One policy per setting; what the line does not print is None.
        assert_eq!(read.policies.len(), 2);
        assert_eq!(read.policies[0].cpus, vec![0, 1]);
        assert_eq!(read.policies[0].cpuinfo_max_khz, Some(5_759_000));
        assert_eq!(read.policies[1].cpuinfo_max_khz, None);
        assert_eq!(read.policies[0].cpuinfo_min_khz, None);
        assert_eq!(read.intel_no_turbo, Some(true));
        // A maximum under the hardware's by less than a MHz prints none.
        let mut near = f.clone();
        near.policies = vec![CpufreqPolicy {
            cpuinfo_max_khz: Some(5_759_400),
            ..policy(vec![0], 5_759_000)
        }];
        assert!(!near.settings().unwrap().contains("(of"));
        assert_eq!(Cpufreq::default().settings(), None);
        for bad in [
            "amd-pstate-epp performance 400-3000 GHz on CPU(s) 0",
            "acpi-cpufreq ondemand 1200-2601 MHz on CPU(s) 3-1",
            "acpi-cpufreq ondemand 1200-2601 MHz",
            "boost on",
        ] {
            assert_eq!(Cpufreq::parse_settings(bad), None, "{bad}");
        }
    }
}
