//! Live: another process spinning on one CPU during a step is seen as
//! other processes' CPU use on that CPU and earns the busy mark; on a CPU
//! the step did not use, it does not count.

use crate::common_live::{spinner_on, Kill};
use std::time::Duration;

use quickbench::conditions::{mark, Mark, Sampler, Step, StepLoad};
use quickbench::cpu_loop::smt::usable_cpu_list;
use quickbench::sysinfo::cgroup::CgroupLimits;
use quickbench::Sysroot;

fn busy_on(cpu: u32) -> Kill {
    spinner_on(cpu as usize)
}

/// One window of `ms` on `cpus` for a step that needs one CPU and sleeps.
fn window(sys: &Sysroot, cpus: &[u32], ms: u64) -> StepLoad {
    let s = Sampler::start(sys, cpus, &CgroupLimits::default()).unwrap();
    // The "step" sleeps: whatever ran on the CPUs was someone else.
    std::thread::sleep(Duration::from_millis(ms));
    s.finish(1.0).load
}

// One test, phases in sequence: a spinner of one phase must not run while
// another phase measures.
#[test]
fn a_spinning_process_counts_on_its_cpu_only() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let sys = Sysroot::live();
    let cpus = usable_cpu_list(&sys);
    {
        let _b = busy_on(cpus[0]);
        std::thread::sleep(Duration::from_millis(100));
        let l = window(&sys, &[cpus[0]], 800);
        let c = l.cpu.clone().unwrap();
        eprintln!("spinner on {}: {c:?}", cpus[0]);
        assert_eq!(c.cpus_counted, vec![cpus[0]]);
        assert!(c.others_cpu_percent > 60.0, "{c:?}");
        let m = mark::marks(Step::Cpu, Some(&l), None);
        assert!(
            m.iter().any(
                |m| matches!(m, Mark::Busy { others_cpu_percent, .. } if *others_cpu_percent > 60.0)
            ),
            "{m:?}"
        );
    }
    if cpus.len() < 2 {
        eprintln!("one usable CPU: the other-CPU phase is skipped");
        return;
    }
    let _b = busy_on(cpus[1]);
    std::thread::sleep(Duration::from_millis(100));
    let mine = window(&sys, &[cpus[0]], 800).cpu.unwrap();
    let both = window(&sys, &cpus[..2], 800).cpu.unwrap();
    eprintln!("spinner on {}: {mine:?}\nboth: {both:?}", cpus[1]);
    assert_eq!(mine.cpus_counted, vec![cpus[0]]);
    // Counting the spinner's CPU adds about a CPU's worth (800 ms); the
    // rest of the machine's load is in both windows.
    assert!(
        both.others_ns >= mine.others_ns + 500_000_000,
        "{mine:?}\n{both:?}"
    );
}
