//! Property: any report the model can hold reads back from its text to the
//! same text (`render(read(render(m))) == render(m)`), over many randomly
//! generated models (a fixed-seed generator, so a failure repeats).

use quickbench::blockdev::details::DeviceDetails;
use quickbench::blockdev::BlockStat;
use quickbench::blockdev::DiskRow;
use quickbench::conditions::io::DeviceIoShare;
use quickbench::conditions::load::CpuLoad;
use quickbench::conditions::procs::ProcessShare;
use quickbench::conditions::reach::{Reach, ReachVerdict};
use quickbench::conditions::{Clock, ProbedClock, StepLoad};
use quickbench::conditions::{Mark, MarkKind, Measured};
use quickbench::cpu_loop::mhz::{ClockProbe, CpuMhz, ProbeStatus};
use quickbench::cpu_loop::smt::{SmtPlan, SmtProbe};
use quickbench::cpu_loop::LoopStep;
use quickbench::dd_io::{Direction, LineResult};
use quickbench::end::End;
use quickbench::membw::dram::{ArrayBound, ArrayPlan, DramBandwidth, DramRun, Stores};
use quickbench::membw::DdBandwidth;
use quickbench::model::trials::TrialFigure;
use quickbench::model::Extended;
use quickbench::model::{
    BlockSize, CpuInfo, CpuInfoLine, IoSetup, Memory, RawSection, Repeated, Report, RoundTrial,
    Section, Stack, StackNode,
};
use quickbench::report::read::read_text;
use quickbench::report::text::render;
use quickbench::samples::Samples;
use quickbench::stats::Summary;
use quickbench::sysinfo::procstat::MhzSource;

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len() as u64) as usize]
    }
    /// A word without spaces.
    fn word(&mut self) -> String {
        let n = 1 + self.below(10);
        (0..n)
            .map(|_| {
                let c = self.pick(&["a", "Z", "0", "9", "-", "_", ".", "é", "(", ")", "/", "x"]);
                c.to_string()
            })
            .collect()
    }
    /// A device name: letters and digits.
    fn name(&mut self) -> String {
        let n = 1 + self.below(6);
        (0..n)
            .map(|_| self.pick(&["a", "d", "v", "0", "1", "n"]).to_string())
            .collect()
    }
    /// Words joined by single or double spaces.
    fn phrase(&mut self) -> String {
        let n = 1 + self.below(4);
        let mut s = self.word();
        for _ in 1..n {
            s.push_str(if self.coin() { " " } else { "  " });
            s.push_str(&self.word());
        }
        s
    }
}

fn model(rng: &mut Rng) -> Report {
    let mut r = Report::new(
        format!(
            "Linux {} 6.{} #1 SMP x86_64 GNU/Linux",
            rng.word(),
            rng.below(20)
        ),
        String::new(),
    );
    r.quickbench.static_build = rng.coin();
    r.quickbench.rustc = format!("rustc 1.{}.0 ({} 2026-01-01)", rng.below(99), rng.word());
    // `--repeat`: one trial, or 2 to 20.
    r.repeat = if rng.coin() {
        1
    } else {
        2 + rng.below(19) as u32
    };
    // Trials within each delay: one block, or 2 to 20.
    r.trials_per_delay = if rng.coin() {
        1
    } else {
        2 + rng.below(19) as u32
    };
    if rng.coin() {
        r.loop_delay_s = Some([0.1, 2.0, 30.0, 12.5][rng.below(4) as usize]);
        // `--budget`, named on the Run line as typed.
        r.budget_s = rng
            .coin()
            .then(|| [90.0, 600.0, 3600.0, 61.0, 5400.0][rng.below(5) as usize]);
        r.dir = Some(format!("/{}/{}", rng.word(), rng.phrase()));
        r.run_fs_device = rng.coin().then(|| (rng.word(), rng.word()));
        r.timestamp_utc = rng.coin().then(|| {
            format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00Z",
                1 + rng.below(12),
                1 + rng.below(28),
                rng.below(24),
                rng.below(60)
            )
        });
    }
    if rng.coin() {
        use quickbench::sysinfo::cgroup::{CgroupLimits, CpuQuota, Hierarchy};
        r.limits = Some(CgroupLimits {
            cpu_quota: rng.coin().then(|| CpuQuota {
                quota_us: 1 + rng.below(1_000_000),
                period_us: 1 + rng.below(1_000_000),
                hierarchy: if rng.coin() {
                    Hierarchy::V1
                } else {
                    Hierarchy::V2
                },
                from_path: String::new(),
                dir: String::new(),
            }),
            memory_limit_bytes: rng.coin().then(|| rng.below(1 << 42)),
            ..CgroupLimits::default()
        });
    }
    if rng.coin() {
        r.sections.push(Section::Cpuinfo);
        let labels = [
            "Model name:",
            "BIOS Model name:",
            "Thread(s) per core:",
            "Core(s) per socket:",
            "Socket(s):",
        ];
        let n = rng.below(6);
        let lines: Vec<CpuInfoLine> = (0..n)
            .map(|_| CpuInfoLine {
                label: rng.pick(&labels).to_string(),
                value: rng.phrase(),
            })
            .collect();
        if lines.is_empty() {
            r.failed_sections.add(Section::Cpuinfo, "none");
        }
        r.cpu_info = Some(CpuInfo {
            label_width_chars: if lines.is_empty() {
                0
            } else {
                19 + rng.below(30) as usize
            },
            lines,
            summary: None,
        });
    }
    if rng.coin() {
        r.sections.push(Section::Cpu);
        for i in 0..rng.below(6) {
            let figure = LoopStep {
                jobs: 1 << i,
                loops_per_s_each: Vec::new(),
                loops_per_s_mean: rng.below(9_999_999_999) as f64,
                elapsed_ns: 0,
                samples: Default::default(),
                end: End::cut_if(rng.below(5) == 0),
            };
            let step = Measured {
                marks: marks(rng),
                ..Measured::plain(figure)
            };
            let step = repeated(rng, r.trials_per_step(), step, |s, f| {
                s.figure.loops_per_s_mean = (s.loops_per_s_mean * f).floor()
            });
            r.cpu_loop.push(step);
        }
    }
    if rng.coin() {
        r.sections.push(Section::Memory);
        let total = rng.coin().then(|| rng.below(1 << 40) << 10);
        let bw = rng.coin().then(|| {
            let figure = DdBandwidth {
                bytes: rng.below(1 << 45),
                elapsed_ns: 1 + rng.below(60_000_000_000),
                samples: Default::default(),
                end: End::cut_if(rng.coin()),
            };
            let step = Measured {
                marks: marks(rng),
                ..Measured::plain(figure)
            };
            repeated(rng, r.trials_per_step(), step, |s, f| {
                s.figure.bytes = (s.bytes as f64 * f) as u64
            })
        });
        if total.is_none() || (bw.is_none() && rng.coin()) {
            r.failed_sections.add(Section::Memory, "x");
        }
        r.memory = Some(Memory {
            mem_total_kib: total,
            dd_bandwidth: bw,
        });
    }
    if rng.coin() {
        r.sections.push(Section::Storage);
        let rows = (0..rng.below(4))
            .map(|_| DiskRow {
                name: rng.word(),
                bus: rng.word(),
                size_gib: rng.below(100_000),
                queue_depth: rng.coin().then(|| rng.below(1024)),
                model: rng.coin().then(|| rng.phrase()),
            })
            .collect();
        r.storage_info = Some(rows);
        if rng.coin() {
            r.storage_stack = Some(Stack {
                roots: (0..1 + rng.below(2)).map(|_| tree(rng, 0)).collect(),
                notes: (0..rng.below(3))
                    .map(|_| format!("{}: {}", rng.word(), rng.phrase()))
                    .collect(),
            });
        }
    }
    if rng.coin() {
        r.sections.push(Section::Io);
        if rng.below(4) == 0 {
            let why = rng.phrase();
            r.storage_bandwidth_skipped = Some(why.clone());
            r.failed_sections.add(Section::Io, why);
        } else {
            let fs = rng.word();
            let device = rng.word();
            r.storage_io = Some(IoSetup {
                memory_fs: match rng.below(3) {
                    0 => Some(fs),
                    1 => Some(device.clone()),
                    _ => None,
                },
                device: Some(device),
                direct_io: rng.coin(),
                remote: rng.coin(),
                raw: match rng.below(3) {
                    0 => Some(quickbench::model::RawAccess::ReadOnly),
                    1 => Some(quickbench::model::RawAccess::Write),
                    _ => None,
                },
            });
            for bs in BlockSize::ALL {
                for dir in [Direction::Write, Direction::Read] {
                    for jobs in [1, 4, 16] {
                        if rng.below(8) == 0 {
                            continue;
                        }
                        let mut l = LineResult::empty(bs.bytes(), dir, jobs);
                        l.mb_per_s = rng.below(100_000) as f64;
                        l.iops = rng.below(10_000_000) as f64;
                        l.lat_mean_us = rng.below(1_000_000) as f64;
                        match rng.below(7) {
                            0 => l.end = End::Interrupted,
                            1 => l.end.stop(
                                "x".into(),
                                Some([libc::EIO, libc::ENOSPC, libc::EROFS][rng.below(3) as usize]),
                            ),
                            // No errno: `(stopped)`; cut by Ctrl-C too.
                            2 => {
                                l.end.interrupt();
                                l.end.stop("x".into(), None);
                            }
                            _ => {}
                        }
                        let step = Measured {
                            marks: marks(rng),
                            ..Measured::plain(l)
                        };
                        let step = repeated(rng, r.trials_per_step(), step, |s, f| {
                            s.figure.iops = (s.iops * f).floor();
                            s.figure.mb_per_s = (s.mb_per_s * f).floor();
                        });
                        r.storage_bandwidth.push(step);
                    }
                }
            }
        }
    }
    if rng.below(3) != 0 {
        extended(rng, &mut r);
    }
    // Every added section, by its own example of its data.
    for s in quickbench::sections::ADDED {
        if rng.coin() {
            r.sections.push(s.section());
            s.example(&mut r, &mut |n| rng.below(n));
        }
    }
    for _ in 0..rng.below(3) {
        r.raw_sections.push(RawSection {
            title: format!("Extended: {}", rng.word()),
            lines: (0..1 + rng.below(3)).map(|_| rng.phrase()).collect(),
        });
    }
    r
}

/// A figure at one printed decimal.
fn tenths(rng: &mut Rng, below: u64) -> f64 {
    rng.below(below * 10) as f64 / 10.0
}

/// Samples of `figure` (sub-intervals or passes), or none: whole numbers
/// and a summary of whole numbers, which JSON carries exactly; the text
/// prints their count, interval and spread.
fn samples(rng: &mut Rng, figure: f64) -> Samples {
    let n = rng.below(30) as usize;
    if n == 0 {
        return Samples::default();
    }
    let f = figure.max(0.0).round();
    let half = rng.below(1 + f as u64 / 5) as f64;
    let interval = (n >= 4).then_some(());
    Samples {
        samples: vec![f; n],
        sample_interval_ns: rng.coin().then(|| (20 + rng.below(481)) * 1_000_000),
        sample_summary: Some(Summary {
            n,
            mean: f,
            median: f,
            min: f - half,
            max: f + half,
            cv: None,
            batches: interval.map(|_| n / 4),
            ci95_lo: interval.map(|_| f - half),
            ci95_hi: interval.map(|_| f + half),
        }),
        printed: None,
    }
}

/// Others' CPU and steal at their printed precision; what `-x` does not
/// print is 0 (marks follow from the load: none from these).
fn cpu_load(rng: &mut Rng) -> CpuLoad {
    CpuLoad {
        cpus_counted: Vec::new(),
        cpus_missing: Vec::new(),
        needed_cpus: 0.0,
        elapsed_ns: 0,
        processes_ns: 0,
        interrupts_ns: 0,
        steal_ns: 0,
        own_ns: 0,
        others_ns: 0,
        others_cpu_percent: rng.below(400) as f64,
        others_percent_of_needed: 0.0,
        own_percent_of_needed: 0.0,
        steal_percent: tenths(rng, 100),
        resolution_ns: 0,
    }
}

fn step_load(rng: &mut Rng) -> Option<StepLoad> {
    rng.coin().then(|| StepLoad {
        cpu: rng.coin().then(|| cpu_load(rng)),
        throttled_percent_of_needed: rng.coin().then(|| rng.below(100) as f64),
        ..StepLoad::default()
    })
}

fn dram_run(rng: &mut Rng, threads: u32) -> DramRun {
    DramRun {
        threads,
        cpus: Vec::new(),
        pinned: rng.below(4) != 0,
        array_bytes: 0,
        stores: Stores::best(),
        copy_gb_per_s: tenths(rng, 1000),
        triad_gb_per_s: tenths(rng, 1000),
        passes: 0,
        copy_samples: Samples::default(),
        triad_samples: Samples::default(),
        elapsed_ns: 0,
        cut_short: rng.below(5) == 0,
        verified: rng.below(5) != 0,
    }
}

/// Every line kind of the `-x` sections, at the precision it prints:
/// steal, clock, spread and load per CPU loop step, the SMT probe (each
/// verdict, its rates, its load), the memory step's spread and load, the
/// DRAM arrays (capped or not), runs and load, device details, and per
/// storage line the percentiles, spread, counters, reach and load.
fn extended(rng: &mut Rng, r: &mut Report) {
    for s in &mut r.cpu_loop {
        s.conditions.clock = rng.coin().then(|| Clock {
            steal_percent: tenths(rng, 100),
            mean_mhz: rng.coin().then(|| rng.below(6000) as f64),
            mhz_source: [MhzSource::Cpufreq, MhzSource::Cpuinfo, MhzSource::None]
                [rng.below(3) as usize],
            mhz_samples: 0,
        });
        s.conditions.load = step_load(rng);
        s.figure.samples = samples(rng, s.loops_per_s_mean);
    }
    // The measured clock: every step probed, or none (the line is then
    // left out). Each CPU as the text keeps it: those that agree at one
    // clock (the cold one at `base`, the hot one within 1 % of it), those
    // that differ in pairs around it (so that the median and the mean
    // stay the clock of those that agree), or not calibrated.
    if rng.coin() {
        let unknown = rng.below(5) == 0;
        let n = 1 + rng.below(12) as u32;
        let base = (400 + rng.below(6000)) as f64;
        let cold_measured = !unknown && rng.below(6) != 0;
        // A CPU whose probe before the CPU loop did not calibrate.
        let cold_none = (cold_measured && rng.below(4) == 0).then(|| rng.below(n.into()) as u32);
        let status = |cpus: &[CpuMhz]| {
            if cpus.iter().any(|c| c.mhz.is_some()) {
                ProbeStatus::Measured
            } else if unknown {
                ProbeStatus::UnknownArchitecture
            } else {
                ProbeStatus::NotCalibrated
            }
        };
        let cpu = |cpu, mhz: Option<f64>| CpuMhz {
            cpu,
            add_chain_mhz: mhz.unwrap_or(0.0),
            imul_chain_mhz: mhz.unwrap_or(0.0),
            mhz,
        };
        let cold_cpus: Vec<CpuMhz> = (0..n)
            .map(|c| cpu(c, (cold_measured && Some(c) != cold_none).then_some(base)))
            .collect();
        let cold = ClockProbe {
            status: status(&cold_cpus),
            cpus: cold_cpus,
            elapsed_ns: 0,
        };
        for s in &mut r.cpu_loop {
            let hot_measured = !unknown && rng.below(6) != 0;
            let h = base + rng.below(base as u64 / 100) as f64;
            let mut mhz: Vec<Option<f64>> = Vec::new();
            while mhz.len() < n as usize {
                let i = mhz.len() as u32;
                let pair = i + 1 < n && Some(i) != cold_none && Some(i + 1) != cold_none;
                if pair && rng.below(4) == 0 {
                    let d = (h * (5 + rng.below(30)) as f64 / 100.0).round();
                    mhz.extend([Some(h + d), Some(h - d)]);
                } else if rng.below(8) == 0 {
                    mhz.push(None);
                } else {
                    mhz.push(Some(h));
                }
            }
            let cpus: Vec<CpuMhz> = mhz
                .into_iter()
                .enumerate()
                .map(|(c, m)| cpu(c as u32, m.filter(|_| hot_measured)))
                .collect();
            s.conditions.probe = Some(ProbedClock {
                cold: cold.clone(),
                hot: ClockProbe {
                    status: status(&cpus),
                    cpus,
                    elapsed_ns: 0,
                },
            });
        }
    }
    // The cpufreq settings (printed by the CPU section): each as the line
    // keeps it (whole MHz; the hardware's maximum only above the scaling
    // one).
    r.cpufreq = rng.coin().then(|| {
        use quickbench::sysinfo::cpufreq::{Cpufreq, CpufreqPolicy};
        let mhz = |rng: &mut Rng| rng.coin().then(|| (400 + rng.below(5000)) * 1000);
        let mut next = 0;
        Cpufreq {
            policies: (0..rng.below(4))
                .map(|_| {
                    let cpus: Vec<u32> = (next..next + 1 + rng.below(4) as u32).collect();
                    next += cpus.len() as u32 + rng.below(2) as u32;
                    let scaling_max_khz = mhz(rng);
                    CpufreqPolicy {
                        dir: String::new(),
                        cpus,
                        driver: rng.coin().then(|| {
                            rng.pick(&["intel_pstate", "acpi-cpufreq", "cpufreq-dt"])
                                .into()
                        }),
                        governor: rng
                            .coin()
                            .then(|| rng.pick(&["performance", "powersave"]).into()),
                        scaling_min_khz: mhz(rng),
                        cpuinfo_max_khz: rng
                            .coin()
                            .then(|| scaling_max_khz.unwrap_or(0) + (1 + rng.below(900)) * 1000),
                        scaling_max_khz,
                        cpuinfo_min_khz: None,
                        energy_performance_preference: rng
                            .coin()
                            .then(|| rng.pick(&["balance_power", "performance", "128"]).into()),
                        boost: rng.coin().then_some(false),
                    }
                })
                .collect(),
            boost: rng.coin().then_some(false),
            intel_no_turbo: rng.coin().then_some(true),
            intel_pstate_status: None,
            amd_pstate_status: None,
        }
    });
    if let Some(bw) = r.memory.as_mut().and_then(|m| m.dd_bandwidth.as_mut()) {
        bw.conditions.load = step_load(rng);
        let figure = bw.bytes_per_s();
        bw.figure.samples = samples(rng, figure);
    }
    for l in &mut r.storage_bandwidth {
        let f = &mut l.figure;
        for v in [
            &mut f.lat_p50_us,
            &mut f.lat_p90_us,
            &mut f.lat_p99_us,
            &mut f.lat_p999_us,
            &mut f.lat_max_us,
        ] {
            *v = tenths(rng, 100_000);
        }
        f.samples = samples(rng, f.iops);
        f.ios = rng.below(1 << 40);
        f.device_stat_delta = rng.coin().then(|| BlockStat {
            read_ios: rng.below(1 << 40),
            write_ios: rng.below(1 << 40),
            ..BlockStat::default()
        });
        l.conditions.reach = rng.coin().then(|| {
            let share = tenths(rng, 300);
            Reach {
                direction: f.direction,
                engine_bytes: 0,
                devices: Vec::new(),
                device_bytes: None,
                device_equivalent_bytes: None,
                device_share_percent: Some(share),
                verdict: ReachVerdict::Reached,
            }
        });
        l.conditions.load = step_load(rng).map(|mut load| {
            load.io = (0..rng.below(3))
                .map(|_| DeviceIoShare {
                    device: rng.name(),
                    device_requests: 0,
                    foreign_requests: 0,
                    device_bytes: 0,
                    foreign_bytes: 0,
                    foreign_requests_percent: 0.0,
                    foreign_bytes_percent: 0.0,
                    foreign_percent: tenths(rng, 100),
                })
                .collect();
            load
        });
    }
    let smt = match rng.below(6) {
        0 => None,
        1 => Some(SmtPlan::NoSiblings),
        2 => Some(SmtPlan::OneCore),
        3 => Some(SmtPlan::SiblingsNotUsable {
            threads_per_core: 2 + rng.below(7) as u32,
        }),
        _ => Some(SmtPlan::Probe {
            threads_per_core: 2 + rng.below(7) as u32,
            siblings: [0, 0],
            separate: [0, 0],
        }),
    };
    let smt_probe = smt.map(|plan| {
        let probe = matches!(plan, SmtPlan::Probe { .. });
        let cut_short = probe && rng.below(5) == 0;
        let ratio = (probe && !cut_short).then(|| rng.below(120) as f64 / 100.0);
        let rates = ratio.is_some() && rng.coin();
        SmtProbe {
            plan,
            siblings_loops_per_s_each: rates.then(|| rng.below(1 << 33) as f64),
            separate_loops_per_s_each: rates.then(|| rng.below(1 << 33) as f64),
            ratio,
            cut_short,
            samples: Default::default(),
        }
    });
    let dram = rng.coin().then(|| {
        let llc = rng.coin().then(|| rng.below(200) << 20);
        let wanted = llc.map_or(0, |l| 4 * l).max(256 << 20);
        let capped = rng.coin();
        let array = if capped {
            (1 + rng.below(wanted >> 20)) << 20
        } else {
            wanted
        };
        let mut single = dram_run(rng, 1);
        single.passes = 1 + rng.below(20) as u32;
        DramBandwidth {
            plan: ArrayPlan {
                array_bytes: array,
                llc_bytes: llc,
                wanted_array_bytes: wanted,
                mem_available_kib: None,
                capped,
                cgroup_headroom_bytes: None,
                bound: match (capped, rng.coin()) {
                    (false, _) => ArrayBound::Wanted,
                    (true, true) => ArrayBound::MemAvailable,
                    (true, false) => ArrayBound::CgroupMemory,
                },
                enough_memory: true,
            },
            single,
            all: rng.coin().then(|| {
                let threads = 2 + rng.below(255) as u32;
                dram_run(rng, threads)
            }),
        }
    });
    r.extended = Some(Extended {
        smt_probe_load: smt_probe.as_ref().and_then(|_| step_load(rng)),
        smt_probe,
        dram_load: dram.as_ref().and_then(|_| step_load(rng)),
        dram,
        device_details: (0..rng.below(3))
            .map(|_| DeviceDetails {
                name: rng.name(),
                rotational: [Some(true), Some(false), None][rng.below(3) as usize],
                scheduler: rng
                    .coin()
                    .then(|| rng.pick(&["none", "mq-deadline", "bfq"]).into()),
                nr_requests: rng.coin().then(|| rng.below(4096)),
                logical_block_size_bytes: rng.coin().then_some(512),
                physical_block_size_bytes: rng.coin().then_some(4096),
                write_cache: rng
                    .coin()
                    .then(|| rng.pick(&["write back", "write through"]).into()),
                hw_queues: rng.coin().then(|| rng.below(64)),
            })
            .collect(),
        kept_as_text: false,
        latency_unread: Vec::new(),
    });
}

/// A step of a report of `repeat` trials: `step` alone, or with trials
/// (some perhaps cut, fewer than `repeat` when a Ctrl-C skipped rounds)
/// whose main figures `scale` spreads around its own, the step then being
/// their median.
fn repeated<M: TrialFigure + Clone>(
    rng: &mut Rng,
    repeat: u32,
    step: M,
    scale: impl Fn(&mut M, f64),
) -> Repeated<M> {
    if repeat == 1 || rng.below(4) == 0 {
        return step.into();
    }
    let n = 1 + rng.below(u64::from(repeat)) as u32;
    let trials = (1..=n)
        .map(|round| {
            let mut t = step.clone();
            scale(&mut t, 0.9 + rng.below(21) as f64 / 100.0);
            // Some trials unmarked: the step's marks say in how many.
            if rng.below(3) == 0 {
                t.set_marks(Vec::new(), Vec::new());
            }
            // A Ctrl-C that skipped rounds cut the last trial run.
            if rng.below(6) == 0 || (round == n && n < repeat) {
                t.end_mut().interrupt();
            }
            RoundTrial { round, step: t }
        })
        .collect();
    Repeated::of_trials(trials)
}

/// Marks of every kind (the match is exhaustive: a new kind does not
/// compile until it is generated here).
fn marks(rng: &mut Rng) -> Vec<Mark> {
    (0..rng.below(3))
        .map(
            |_| match MarkKind::ALL[rng.below(MarkKind::ALL.len() as u64) as usize] {
                MarkKind::Busy => Mark::Busy {
                    others_cpu_percent: rng.below(400) as f64,
                    others_percent_of_needed: 0.0,
                    processes: (0..rng.below(4))
                        .map(|_| ProcessShare {
                            pid: 0,
                            comm: if rng.coin() {
                                rng.name()
                            } else {
                                rng.pick(&["kworker/0:1H", "qb-spinner", "Web Content", "(sd-pam)"])
                                    .replace(['(', ')'], "_")
                            },
                            cpu_percent: 0.0,
                        })
                        .collect(),
                },
                MarkKind::Steal => Mark::Steal {
                    percent: rng.below(100) as f64,
                },
                MarkKind::OtherIo => Mark::OtherIo {
                    device: rng.name(),
                    percent: rng.below(100) as f64,
                },
                MarkKind::Throttled => Mark::Throttled {
                    percent: rng.below(100) as f64,
                },
                MarkKind::Cached => Mark::Cached {
                    devices: rng.name(),
                    percent: rng.below(500) as f64 / 10.0,
                    reads: rng.coin(),
                },
                MarkKind::Clock => Mark::Clock {
                    percent: -(rng.below(60) as f64) - 5.0,
                },
                MarkKind::BelowMaxClock => Mark::BelowMaxClock {
                    percent: rng.below(100) as f64,
                },
                MarkKind::ThermalThrottled => Mark::ThermalThrottled { events: 0 },
                MarkKind::Swapping => Mark::Swapping {
                    pages_in: rng.below(100_000),
                    pages_out: rng.below(100_000),
                },
                MarkKind::Drift => Mark::Drift {
                    percent: rng.below(120) as f64 - 60.0,
                },
                MarkKind::Zeros => Mark::Zeros {
                    percent: (50 + rng.below(51)) as f64,
                },
                MarkKind::Burst => Mark::Burst {
                    before: (1000 + rng.below(100_000)) as f64,
                    seconds: (10 + rng.below(100)) as f64,
                    after: (1 + rng.below(900)) as f64,
                },
            },
        )
        .collect()
}

fn tree(rng: &mut Rng, depth: u32) -> StackNode {
    let kids = if depth < 3 { rng.below(3) } else { 0 };
    StackNode {
        name: rng.word(),
        size: if rng.below(5) == 0 {
            String::new()
        } else {
            format!("{}G", rng.below(999))
        },
        kind: rng
            .pick(&["disk", "part", "lvm", "crypt", "raid1", "loop"])
            .into(),
        mountpoint: if rng.coin() {
            String::new()
        } else {
            format!("/{}", rng.word())
        },
        children: (0..kids).map(|_| tree(rng, depth + 1)).collect(),
    }
}

#[test]
fn random_reports_read_back_from_their_text() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut extended_cases = 0;
    let mut some_trials_marked = 0;
    let (mut cpus_differ, mut wrapped, mut cpufreq) = (0, 0, 0);
    for case in 0..2000 {
        let m = model(&mut rng);
        let text = render(&m);
        some_trials_marked += usize::from(text.contains(" trials)"));
        cpus_differ += usize::from(text.contains(" CPUs differ (hot/cold MHz):"));
        wrapped += usize::from(text.contains(",\n            cpu"));
        cpufreq += usize::from(text.contains("\nCPU freq  : "));
        let read = read_text("generated.txt", &text)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        assert_eq!(render(&read), text, "case {case}");
        // The extended sections go through the structured path.
        let known = [
            "[ Extended: CPU ]",
            "[ Extended: Memory (DRAM, STREAM-like) ]",
            "[ Extended: Storage ]",
        ];
        if known.iter().any(|t| text.contains(t)) {
            let x = read.extended.as_ref().expect("extended sections read");
            assert!(!x.kept_as_text, "case {case}: kept as text\n{text}");
        }
        if m.extended.is_some() {
            extended_cases += 1;
        }
    }
    assert!(extended_cases > 1000, "{extended_cases}");
    assert!(some_trials_marked > 100, "{some_trials_marked}");
    // The CPUs that differ (on one line and wrapped), the settings.
    assert!(cpus_differ > 100, "{cpus_differ}");
    assert!(wrapped > 20, "{wrapped}");
    assert!(cpufreq > 100, "{cpufreq}");
}

#[test]
fn random_reports_read_back_from_their_json() {
    use quickbench::report::read::read_json;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..500 {
        let m = model(&mut rng);
        let json = serde_json::to_string(&m).unwrap();
        let read = read_json("generated.json", &json)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{json}"));
        assert_eq!(serde_json::to_string(&read).unwrap(), json, "case {case}");
        assert_eq!(read.repeat, m.repeat, "case {case}");
        let trials = |r: &Report| -> Vec<usize> {
            r.cpu_loop
                .iter()
                .map(|s| s.trials.len())
                .chain(r.storage_bandwidth.iter().map(|l| l.trials.len()))
                .collect()
        };
        assert_eq!(trials(&read), trials(&m), "case {case}");
    }
}

#[test]
fn any_report_compared_with_itself_is_never_better_or_worse() {
    use quickbench::compare::{compare, Input, Verdict};
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for case in 0..500 {
        let m = model(&mut rng);
        let inputs = [Input::new("a", m.clone()), Input::new("b", m)];
        let c = compare(&inputs);
        assert!(c.missing.is_empty(), "case {case}: {:?}", c.missing);
        for r in &c.rows {
            match &r.verdicts[1] {
                Verdict::Same | Verdict::Equal => {}
                // One report a side: the run-to-run spread is assumed, so
                // an identical figure may read ~ (it cannot be shown to be
                // within ±5 % of itself across runs); never better or worse.
                Verdict::Inconclusive => {}
                Verdict::NotComparable { why } => {
                    assert!(!r.marks[1].is_empty(), "case {case}: {} {why}", r.label)
                }
                // Every trial marked busy, steal or other I/O: no verdict,
                // the ratio as measured, and the mark shown.
                Verdict::Distorted { ratio, .. } => {
                    assert!(!r.marks[1].is_empty(), "case {case}: {}", r.label);
                    assert!(ratio.is_none_or(|x| (x - 1.0).abs() < 1e-9), "case {case}");
                }
                v => panic!("case {case}: {} {:?}: {v:?}", r.label, r.texts),
            }
        }
    }
}
