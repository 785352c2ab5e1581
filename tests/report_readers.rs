//! The readers: our text reads back exactly (`render(read(text)) == text`),
//! our JSON reads into the same model as our text, and the bash
//! original's reports read in every layout it printed.

use std::fs;

use assert_cmd::Command;
use quickbench::model::{BlockSize, Report, Section};
use quickbench::report::read::{read_report, read_text};
use quickbench::report::text::render;

/// A real Build line in place of the goldens' placeholder.
fn unmask(golden: &str) -> String {
    golden
        .replace("<version>", env!("CARGO_PKG_VERSION"))
        .replace("<date>", "2026-12-03 18:20 UTC")
        .replace(
            "Build     : <compiler>, <target>, <linkage>",
            "Build     : rustc 1.95.0 (59807616e 2026-04-14), x86_64-unknown-linux-gnu, static",
        )
}

fn round_trip(name: &str, text: &str) -> Report {
    let r = read_text(name, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(render(&r), text, "{name} does not read back exactly");
    r
}

#[test]
fn every_golden_file_reads_back_byte_for_byte() {
    for entry in fs::read_dir("tests/golden").unwrap() {
        let path = entry.unwrap().path();
        let text = unmask(&fs::read_to_string(&path).unwrap());
        let r = round_trip(&path.display().to_string(), &text);
        assert!(r.original.is_none());
        assert_eq!(r.quickbench.port_version, env!("CARGO_PKG_VERSION"));
        assert!(r.quickbench.static_build);
    }
}

#[test]
fn the_whole_golden_report_reads_into_its_figures() {
    let text = unmask(&fs::read_to_string("tests/golden/whole-report-lvm-luks-md.txt").unwrap());
    let r = read_text("golden", &text).unwrap();
    assert_eq!(r.hostname, "fixture");
    assert_eq!(
        r.sections,
        vec![
            Section::Cpuinfo,
            Section::Cpu,
            Section::Memory,
            Section::Storage,
            Section::Io
        ]
    );
    assert_eq!(r.cpu_info.as_ref().unwrap().lines.len(), 4);
    assert_eq!(r.cpu_info.as_ref().unwrap().label_width_chars, 32);
    assert_eq!(r.cpu_loop.len(), 3);
    assert_eq!(r.cpu_loop[2].jobs, 4);
    assert_eq!(r.cpu_loop[2].loops_per_s_mean, 402_662_640.0);
    let m = r.memory.as_ref().unwrap();
    assert_eq!(m.mem_total_kib, Some(15921 << 10));
    let bw = m.dd_bandwidth.as_ref().unwrap().bytes_per_s();
    assert!((bw / 31.1e9 - 1.0).abs() < 1e-6, "{bw}");
    assert_eq!(r.storage_info.as_ref().unwrap()[1].name, "sdb");
    let stack = r.storage_stack.as_ref().unwrap();
    assert_eq!(stack.roots[0].name, "vg0-root");
    assert_eq!(stack.roots[0].children[0].children[0].children.len(), 2);
    assert_eq!(
        r.storage_io.as_ref().unwrap().device.as_deref(),
        Some("dm-1")
    );
    assert_eq!(r.storage_bandwidth.len(), 12);
    assert_eq!(r.lines_of(BlockSize::M1).count(), 6);
    let l = &r.storage_bandwidth[2];
    assert_eq!((l.jobs, l.iops, l.lat_mean_us), (16, 100_666.0, 158.0));
    assert!(r.failed_sections.is_empty());
}

fn quickbench() -> Command {
    Command::cargo_bin("quickbench").unwrap()
}

/// A fixture sysroot (the golden tests' LVM on LUKS on md host) for the
/// stand-in runs below.
fn fixture_run(extra: &[&str]) -> (String, String) {
    let d = tempfile::tempdir().unwrap();
    write_host(d.path());
    let run = |json: bool| {
        let mut c = quickbench();
        c.arg("--sysroot").arg(d.path());
        c.args(["--fake-figures", "--dir", "/", "12"]).args(extra);
        if json {
            c.arg("--json");
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    (run(false), run(true))
}

/// A small host: cpuinfo, meminfo, uname, one virtio disk holding /.
fn write_host(root: &std::path::Path) {
    let w = |p: &str, c: &str| {
        let p = root.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, c).unwrap();
    };
    w(
        "proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\n\
         physical id\t: 0\nsiblings\t: 2\ncore id\t\t: 0\ncpu cores\t: 2\n\n\
         processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\n\
         physical id\t: 0\nsiblings\t: 2\ncore id\t\t: 1\ncpu cores\t: 2\n\n",
    );
    w(
        "proc/meminfo",
        "MemTotal:       24683584 kB\nMemAvailable:   20000000 kB\n",
    );
    w("proc/sys/kernel/ostype", "Linux\n");
    w("proc/sys/kernel/hostname", "vm\n");
    w("proc/sys/kernel/osrelease", "6.18.44\n");
    w("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC @0\n");
    w("proc/sys/kernel/arch", "x86_64\n");
    w(
        "proc/self/mountinfo",
        "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n",
    );
    for f in ["possible", "present", "online"] {
        w(&format!("sys/devices/system/cpu/{f}"), "0-1\n");
    }
    w("sys/block/vda/size", "536870912\n");
    w("sys/block/vda/dev", "254:0\n");
    w("sys/class/block/vda/dev", "254:0\n");
    w("sys/class/block/vda/size", "536870912\n");
}

#[test]
fn text_and_json_of_one_run_are_one_model() {
    for extra in [&[][..], &["-x"][..], &["--only", "memory,io"][..]] {
        let (text, json) = fixture_run(extra);
        let from_json = read_report("run.json", &json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            render(&from_json),
            text,
            "{extra:?}: JSON renders another text"
        );
        let again = serde_json::to_value(&from_json).unwrap();
        let original: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            again, original,
            "{extra:?}: JSON does not read back exactly"
        );
        let from_text = round_trip("run.txt", &text);
        assert_eq!(
            from_text.storage_bandwidth.len(),
            from_json.storage_bandwidth.len()
        );
    }
}

#[test]
fn a_dry_run_reads_back_from_text_and_from_json() {
    let (text, json) = fixture_run(&["--dry-run"]);
    round_trip("dry.txt", &text);
    let from_json = read_report("dry.json", &json).unwrap();
    assert!(from_json.dry_run);
    assert_eq!(render(&from_json), text);
}

#[test]
fn a_live_run_reads_back_byte_for_byte() {
    let out = quickbench()
        .args(["0.1", "-q", "--only", "cpuinfo,cpu,memory,storage"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let r = round_trip("live.txt", &text);
    assert!(!r.cpu_loop.is_empty());
    assert!(r.cpu_loop.iter().all(|s| s.loops_per_s_mean > 0.0));
}

/// The bash original at commit f56350b on a 2-vCPU KVM guest, loop delay 2
/// (its last release that found the device by device number; titles name
/// it). Printed as is, including the `grep:` error its device lookup sent
/// to the terminal.
const BASH_F56350B: &str = include_str!("common_reports/bash-original-f56350b.txt");

/// Its newest commit on the same guest: it stops after the storage table.
const BASH_HEAD_STOPPED: &str = "Quickbench: 1.0
Kernel    : Linux vm 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux
Bash      : GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)
dd        : dd (coreutils) 9.1

[ CPU info ]
Model name:                              AMD EPYC
Thread(s) per core:                      1
Core(s) per socket:                      2
Socket(s):                               1

[ CPU loop ]
 1 // jobs :     271560 loop/job/s
 2 // jobs :     312204 loop/job/s

[ Memory ]
Total    : 24105 MB
Bandwidth: 32.0 GB/s

[ Storage info ]
Name      Bus     Size(GB)  QDepth  Model
vda       virtio      256        ?  ?
Could not figure out the backing block device for /tmp/bench, sorry
";

#[test]
fn the_bash_originals_real_reports_read() {
    let r = read_text("f56350b.txt", BASH_F56350B).unwrap();
    let o = r.original.as_ref().unwrap();
    assert_eq!(o.version, "1.0");
    assert_eq!(o.dd.as_deref(), Some("dd (coreutils) 9.1"));
    assert_eq!(r.hostname, "vm");
    assert_eq!(r.cpu_info.as_ref().unwrap().label_width_chars, 40);
    assert_eq!(r.cpu_loop[1].loops_per_s_mean, 370_382.0);
    assert_eq!(r.storage_info.as_ref().unwrap()[0].bus, "virtio");
    assert_eq!(
        r.stray_lines,
        vec!["grep: /sys/block/*/*/dev: No such file or directory"]
    );
    assert_eq!(r.storage_bandwidth.len(), 12);
    assert_eq!(r.storage_bandwidth[11].mb_per_s, 657.0);
    assert_eq!(
        r.storage_io.as_ref().unwrap().device.as_deref(),
        Some("vda")
    );
    assert!(r.failed_sections.is_empty());

    let r = read_text("head.txt", BASH_HEAD_STOPPED).unwrap();
    assert!(r.storage_bandwidth.is_empty());
    assert!(r.failed_sections.contains(Section::Io));
    assert!(r
        .storage_bandwidth_skipped
        .as_deref()
        .unwrap()
        .contains("Could not figure out"));
}

/// The newest bash original on an LVM volume: no device in the titles, a
/// `[ Storage device stack ]` block from `lsblk -s`, written by hand in
/// its layout.
const BASH_HEAD_STACK: &str = "Quickbench: 1.0
Kernel    : Linux db1 6.1.0-26-cloud-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30) x86_64 GNU/Linux
Bash      : GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)
dd        : dd (coreutils) 9.1

[ CPU info ]
Model name:            Intel Core Processor (Haswell, no TSX)
BIOS Model name:       pc-i440fx-8.2 CPU @ 2.0GHz
Thread(s) per core:    1
Core(s) per socket:    1
Socket(s):             4

[ CPU loop ]
 1 // jobs :     478140 loop/job/s
 2 // jobs :     476692 loop/job/s
 4 // jobs :     458565 loop/job/s

[ Memory ]
Total    : 14641 MB
Bandwidth: 22.0 GB/s

[ Storage info ]
Name      Bus     Size(GB)  QDepth  Model
sda       scsi        100      128  QEMU HARDDISK

[ Storage device stack ]
NAME            SIZE TYPE MOUNTPOINT
vg0-data         50G lvm  /srv
`-sda2         99.5G part 
  `-sda         100G disk 

[ Storage bandwidth - 4k blocks ]
Writes ( 1 thread[s]):     50 MB/s   12314 IO/s       0 µs avg. lat.
Writes ( 4 thread[s]):    151 MB/s   36998 IO/s       0 µs avg. lat.
";

#[test]
fn the_newest_bash_layout_reads_with_its_stack_and_no_device() {
    let r = read_text("head-lvm.txt", BASH_HEAD_STACK).unwrap();
    let info = r.cpu_info.as_ref().unwrap();
    assert_eq!(info.label_width_chars, 22);
    assert_eq!(info.lines[1].label, "BIOS Model name:");
    let s = r.storage_stack.as_ref().unwrap();
    assert_eq!(s.roots[0].mountpoint, "/srv");
    assert_eq!(s.roots[0].children[0].name, "sda2");
    assert_eq!(s.roots[0].children[0].children[0].size, "100G");
    assert_eq!(r.storage_io.as_ref().unwrap().device, None);
    // cut short after two lines
    assert_eq!(r.storage_bandwidth.len(), 2);
    assert_eq!(r.storage_bandwidth[1].iops, 36998.0);
}

#[test]
fn crlf_and_collapsed_whitespace_read_like_the_original() {
    let crlf = BASH_F56350B.replace('\n', "\r\n");
    let a = read_text("crlf.txt", &crlf).unwrap();
    let collapsed: String = BASH_F56350B
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    let b = read_text("pasted.txt", &collapsed).unwrap();
    let c = read_text("orig.txt", BASH_F56350B).unwrap();
    for r in [&a, &b] {
        assert_eq!(r.cpu_loop.len(), c.cpu_loop.len());
        assert_eq!(r.storage_bandwidth.len(), 12);
        assert_eq!(r.memory, c.memory);
        assert_eq!(r.storage_info, c.storage_info);
        assert_eq!(
            r.cpu_info.as_ref().unwrap().lines,
            c.cpu_info.as_ref().unwrap().lines
        );
    }
}

/// The example of the original's README, as it reached us pasted through a
/// web page: single spaces, blank lines gone, prose before and after.
const PASTED_README: &str = "Example usage :
$ ./quickbench
Quickbench: 1.0
Kernel : Linux ovhb2 6.1.0-26-cloud-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30) x86_64 GNU/Linux
Bash : GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)
dd : dd (coreutils) 9.1
[ CPU info ]
Model name: Intel Core Processor (Haswell, no TSX)
BIOS Model name: pc-i440fx-8.2 CPU @ 2.0GHz
Thread(s) per core: 1
Core(s) per socket: 1
Socket(s): 4
[ CPU loop ]
1 // jobs : 478140 loop/job/s
2 // jobs : 476692 loop/job/s
4 // jobs : 458565 loop/job/s
[ Memory ]
Total : 14641 MB
Bandwidth: 22.0 GB/s
[ Storage info ]
Name Bus Size(GB) QDepth Model
sda scsi 100 128 QEMU HARDDISK
[ Storage bandwidth - 4k blocks (sda) ]
Writes ( 1 thread[s]): 50 MB/s 12314 IO/s 0 µs avg. lat.
Reads ( 1 thread[s]): 50 MB/s 12313 IO/s 0 µs avg. lat.
[ Storage bandwidth - 1M blocks (sda) ]
Writes ( 1 thread[s]): 1450 MB/s 1384 IO/s 0 µs avg. lat.
Reads (16 thread[s]): 6187 MB/s 5900 IO/s 1 µs avg. lat.
The script accepts only 1 parameter which is the loop delay : every loop in the benchmark will not run more than the given figure in seconds.
";

#[test]
fn a_pasted_report_reads_between_its_prose() {
    let r = read_text("readme.txt", PASTED_README).unwrap();
    assert_eq!(r.hostname, "ovhb2");
    assert_eq!(r.cpu_loop.len(), 3);
    assert_eq!(r.memory.as_ref().unwrap().mem_total_kib, Some(14641 << 10));
    let disk = &r.storage_info.as_ref().unwrap()[0];
    assert_eq!(disk.model.as_deref(), Some("QEMU HARDDISK"));
    assert_eq!(disk.queue_depth, Some(128));
    assert_eq!(r.storage_bandwidth.len(), 4);
    assert_eq!(r.storage_bandwidth[3].jobs, 16);
    assert!(r.stray_lines[0].contains("Example usage"));
    assert!(r
        .stray_lines
        .last()
        .unwrap()
        .contains("accepts only 1 parameter"));
}

#[test]
fn a_report_cut_at_any_line_still_reads() {
    for text in [BASH_F56350B, BASH_HEAD_STACK] {
        let lines: Vec<&str> = text.lines().collect();
        for n in 1..=lines.len() {
            let cut = lines[..n].join("\n");
            if let Err(e) = read_text("cut.txt", &cut) {
                panic!("cut after line {n}: {e}");
            }
        }
    }
}

#[test]
fn what_cannot_be_read_names_the_file_and_line() {
    let e = read_report("notes.txt", "hello\nworld\n").unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("notes.txt", 1));
    assert!(e.to_string().starts_with("notes.txt:1: "), "{e}");
    // garbage in the middle, with a section after it
    let bad = BASH_F56350B.replace(" 2 // jobs :     370382 loop/job/s", "two jobs: fast");
    let e = read_text("bad.txt", &bad).unwrap_err();
    assert_eq!(e.line, 14, "{e}");
    assert!(e.message.contains("CPU loop line"), "{e}");
    // a JSON document of a newer major, and one that is not ours
    let e = read_report("new.json", r#"{"schema_version": 2}"#).unwrap_err();
    assert!(e.message.contains("newer quickbench"), "{e}");
    let e = read_report("other.json", r#"{"name": "x"}"#).unwrap_err();
    assert!(e.message.contains("schema_version"), "{e}");
    let e = read_report("broken.json", "{\n\"schema_version\": 1,\n").unwrap_err();
    assert!(e.line >= 2, "{e}");
}

/// The stand-in's `-x` text reads into the figures the JSON holds, through
/// the structured path (no section kept as lines), and renders back.
#[test]
fn an_extended_text_report_reads_into_its_figures() {
    let (text, json) = fixture_run(&["-x"]);
    assert!(text.contains("[ Extended: Storage ]"), "{text}");
    let r = round_trip("x.txt", &text);
    assert!(r.raw_sections.is_empty(), "{:?}", r.raw_sections);
    let x = r.extended.as_ref().expect("extended sections read");
    assert!(!x.kept_as_text);
    let from_json = read_report("x.json", &json).unwrap();
    let xj = from_json.extended.as_ref().unwrap();
    // DRAM: what the lines print.
    let (d, dj) = (x.dram.as_ref().unwrap(), xj.dram.as_ref().unwrap());
    assert_eq!(d.plan.array_bytes, dj.plan.array_bytes);
    assert_eq!(d.plan.llc_bytes, dj.plan.llc_bytes);
    assert_eq!(d.single.passes, dj.single.passes);
    assert_eq!(d.single.copy_gb_per_s, 10.0);
    assert_eq!(d.single.triad_gb_per_s, 11.0);
    let all = d.all.as_ref().unwrap();
    assert_eq!(
        (all.threads, all.copy_gb_per_s, all.triad_gb_per_s),
        (2, 20.0, 22.0)
    );
    // The SMT contention test's verdict.
    assert_eq!(
        x.smt_contention.as_ref().unwrap().verdict(),
        xj.smt_contention.as_ref().unwrap().verdict()
    );
    assert_eq!(x.device_details, xj.device_details);
    // Each storage line's percentiles and spread.
    assert_eq!(r.storage_bandwidth.len(), 12);
    for (l, lj) in r.storage_bandwidth.iter().zip(&from_json.storage_bandwidth) {
        let round = |v: f64| (v * 10.0).round() / 10.0;
        assert_eq!(l.lat_p50_us, round(lj.lat_p50_us));
        assert_eq!(l.lat_p999_us, round(lj.lat_p999_us));
        assert_eq!(l.lat_max_us, round(lj.lat_max_us));
        assert_eq!(l.samples.count(), lj.samples.samples.len());
        assert_eq!(l.samples.sample_interval_ns, lj.samples.sample_interval_ns);
        assert!(l.device_stat_delta.is_none());
    }
    assert_eq!(r.storage_bandwidth[8].lat_p50_us, 4444.4);
    // Each CPU step's spread; the stand-in reads no clock.
    for (s, sj) in r.cpu_loop.iter().zip(&from_json.cpu_loop) {
        assert_eq!(s.samples.count(), sj.samples.samples.len());
        assert!(s.samples.count() > 0);
        assert_eq!(s.conditions.clock, None);
    }
    let bw = r.memory.as_ref().unwrap().dd_bandwidth.as_ref().unwrap();
    assert!(bw.samples.count() > 0);
}

/// A `-x` text with a clock, loads, marks, an SMT ratio, a capped DRAM
/// plan and device counters: every line kind reads back structured.
const EXTENDED_FULL: &str = "Quickbench: 0.1.0 (Rust port of Bearstech's Quickbench 1.0)
Kernel    : Linux vm 6.18 #1 SMP x86_64 GNU/Linux
Build     : rustc 1.95.0 (59807616e 2026-04-14), x86_64-unknown-linux-gnu, static
CPU loop  : loop v1 (8 independent multiply-xorshift chains), not comparable with the bash original's figures

[ CPU loop ]
 1 // jobs :  399999000 loop/job/s
 2 // jobs :  399998000 loop/job/s (steal 3 %)

[ Memory ]
Total    : 24105 MB
Bandwidth: 30.9 GB/s

[ Storage bandwidth - 4k blocks (vda) ]
Writes ( 1 thread[s]):    102 MB/s   25000 IO/s      40 µs avg. lat.
Reads  ( 1 thread[s]):    102 MB/s   25000 IO/s      40 µs avg. lat.

[ Extended: CPU ]
 1 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq)   rate ±  1.2 % (24 x 500 ms); others 5 % of a CPU
 2 // jobs : steal   3.0 %   clock   2594 MHz (cpuinfo, often the nominal clock)   rate ±    ? % (1 x 20 ms); others 0 % of a CPU, throttled 7 %
SMT probe : 2 threads per core share execution units: siblings run at 0.58x
            siblings  232000000 loop/job/s, separate cores  400000000 loop/job/s
Load      : during the SMT probe; others 1 % of a CPU, steal 0.2 %

[ Extended: Memory (DRAM, STREAM-like) ]
Bandwidth : during the dd-like step, rate ±  0.6 % (24 x 500 ms); others 2 % of a CPU, steal 0.0 %
Arrays    : 3 x 64 MiB (last-level cache 64 MiB), best of 3 passes
Note      : arrays of 64 MiB instead of 256 MiB (4 x the 64 MiB last-level cache): 3 arrays are capped to half of what the cgroup memory limit still allows (limit minus usage)
 1 thread : copy   10.0 GB/s   triad   11.0 GB/s
 2 threads: copy   20.0 GB/s   triad   22.0 GB/s   (threads not pinned) (arrays did not verify: figure suspect)
Load      : during the DRAM runs; others 0 % of a CPU, steal 0.0 %, throttled 9 % (throttled 9 %: cgroup CPU quota)

[ Extended: Storage ]
Device    : vda: non-rotational, scheduler mq-deadline, nr_requests 256, blocks 512/4096 B (logical/physical), write cache write back, 2 hw queue(s)
4k Writes ( 1 thread[s]): p50     38.5  p90     41.0  p99     60.2  p99.9    120.0  max    4000.0 µs  | IO/s ±  0.6 % (24 x 500 ms)  | engine 300000 I/Os, device 300123; devices saw 101.2 % of our bytes; not ours on vda: 0.1 %; others 3 % of a CPU, steal 0.1 %
4k Reads  ( 1 thread[s]): p50     39.5  p90     42.0  p99     61.2  p99.9    121.0  max    4001.0 µs  | no device counters
";

#[test]
fn every_extended_line_kind_reads_back_structured() {
    let r = round_trip("full.txt", EXTENDED_FULL);
    assert!(r.raw_sections.is_empty(), "{:?}", r.raw_sections);
    let x = r.extended.as_ref().unwrap();
    assert!(!x.kept_as_text);
    let c = r.cpu_loop[1].conditions.clock.unwrap();
    assert_eq!((c.steal_percent, c.mean_mhz), (3.0, Some(2594.0)));
    let load = r.cpu_loop[1].conditions.load.as_ref().unwrap();
    assert_eq!(load.throttled_percent_of_needed, Some(7.0));
    assert_eq!(r.cpu_loop[1].samples.count(), 1);
    assert_eq!(r.cpu_loop[1].samples.half_width_percent(1.0), None);
    let p = x.smt_contention.as_ref().unwrap();
    assert_eq!(p.ratio, Some(0.58));
    assert_eq!(p.siblings_loops_per_s_each, Some(232_000_000.0));
    assert_eq!(p.separate_loops_per_s_each, Some(400_000_000.0));
    assert_eq!(
        x.smt_contention_load
            .as_ref()
            .unwrap()
            .cpu
            .as_ref()
            .unwrap()
            .steal_percent,
        0.2
    );
    let d = x.dram.as_ref().unwrap();
    assert!(d.plan.capped);
    assert_eq!(d.plan.wanted_array_bytes, 256 << 20);
    assert_eq!(d.plan.llc_bytes, Some(64 << 20));
    let all = d.all.as_ref().unwrap();
    assert!(!all.pinned && !all.verified && !all.cut_short);
    assert_eq!(
        x.dram_load.as_ref().unwrap().throttled_percent_of_needed,
        Some(9.0)
    );
    assert_eq!(x.device_details[0].nr_requests, Some(256));
    assert_eq!(
        x.device_details[0].write_cache.as_deref(),
        Some("write back")
    );
    let w = &r.storage_bandwidth[0];
    assert_eq!(
        [
            w.lat_p50_us,
            w.lat_p90_us,
            w.lat_p99_us,
            w.lat_p999_us,
            w.lat_max_us
        ],
        [38.5, 41.0, 60.2, 120.0, 4000.0]
    );
    assert_eq!(w.ios, 300_000);
    assert_eq!(w.device_stat_delta.unwrap().write_ios, 300_123);
    assert_eq!(
        w.conditions.reach.as_ref().unwrap().device_share_percent,
        Some(101.2)
    );
    assert_eq!(
        w.conditions.load.as_ref().unwrap().io[0].foreign_percent,
        0.1
    );
    assert!(r.storage_bandwidth[1].device_stat_delta.is_none());
}

/// Older `-x` layouts (from the history of `src/report/extended.rs`): the
/// first one printed no load words and marked foreign I/O as `(+N not
/// ours)`; a later one printed the steal twice; none had the `±` spread.
/// They read, their extended lines kept as printed, and what did read
/// (the DRAM figures) is there for compare; a known line that is
/// malformed is kept the same way.
#[test]
fn older_extended_layouts_still_read_their_lines_kept() {
    let head = EXTENDED_FULL.split("[ Extended: CPU ]").next().unwrap();
    let older = [
        // Steal printed twice, no spread.
        "[ Extended: CPU ]
 1 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq); others 5 % of a CPU, steal 0.3 %
 2 // jobs : steal   3.0 %   clock   2594 MHz (cpufreq); others 0 % of a CPU, steal 3.0 %
SMT probe : siblings do not slow each other (0.97x)
",
        // The first layout: conditions only, other I/O in parentheses.
        "[ Extended: CPU ]
 1 // jobs : steal   0.3 %   clock   2600 MHz (cpufreq)
 2 // jobs : steal   3.0 %   clock   2594 MHz (cpufreq)
SMT probe : siblings do not slow each other (0.97x)

[ Extended: Storage ]
Device    : vda: non-rotational, scheduler none, nr_requests 256, blocks 512/512 B (logical/physical), write cache write back, 2 hw queue(s)
4k Writes ( 1 thread[s]): p50     38.5  p90     41.0  p99     60.2  p99.9    120.0  max    4000.0 µs  | engine 300000 I/Os, device 300123 (+123 not ours: other I/O during the line)
4k Reads  ( 1 thread[s]): p50     39.5  p90     42.0  p99     61.2  p99.9    121.0  max    4001.0 µs  | no device counters
",
        // A known line, malformed (a NaN figure), and an unknown one.
        "[ Extended: Memory (DRAM, STREAM-like) ]
Arrays    : 3 x 256 MiB (last-level cache 32 MiB), best of 3 passes
 1 thread : copy    NaN GB/s   triad   11.0 GB/s
 2 threads: copy   20.0 GB/s   triad   22.0 GB/s
Prefetch  : on
",
    ];
    for (i, tail) in older.iter().enumerate() {
        let text = format!("{head}{tail}");
        let r = round_trip(&format!("older-{i}.txt"), &text);
        let x = r.extended.as_ref().unwrap();
        assert!(x.kept_as_text, "case {i}");
        assert!(!r.raw_sections.is_empty(), "case {i}");
        match i {
            0 | 1 => {
                assert_eq!(r.cpu_loop[0].conditions.clock.unwrap().steal_percent, 0.3);
                assert_eq!(x.smt_contention.as_ref().unwrap().ratio, Some(0.97));
            }
            _ => {
                // The malformed run line is not read; the other one is.
                let d = x.dram.as_ref().unwrap();
                assert_eq!(d.single.copy_gb_per_s, 20.0);
                assert!(d.all.is_none());
            }
        }
        if i == 1 {
            // The line with `(+N not ours)` reads up to its percentiles
            // (they are not zeros); the other one reads whole.
            assert_eq!(r.storage_bandwidth[0].lat_p50_us, 38.5);
            assert_eq!(r.storage_bandwidth[0].ios, 0, "the older tail is not read");
            assert_eq!(r.storage_bandwidth[1].lat_p50_us, 39.5);
            assert!(x.latency_unread.is_empty(), "{:?}", x.latency_unread);
        }
    }
}

/// With `--repeat`, the extended lines are the median trial's: they read
/// back structured too.
#[test]
fn a_repeated_extended_text_report_reads_structured() {
    let (text, _) = fixture_run(&["-x", "--repeat", "3"]);
    let r = round_trip("x3.txt", &text);
    assert!(r.raw_sections.is_empty(), "{:?}", r.raw_sections);
    assert!(!r.extended.as_ref().unwrap().kept_as_text);
    assert!(r.cpu_loop.iter().all(|s| s.samples.count() > 0));
}

/// A JSON report is checked where it is read: a figure no run can write
/// (negative, not finite, beyond 2^64), an index outside its list, trials
/// that disagree with `repeat`. Each mutation of a real `--repeat 3`
/// report is refused, naming the file, the JSON path of the field and
/// what was expected; `compare` exits 2 on it.
#[test]
fn a_json_figure_no_run_can_write_is_refused_by_its_path() {
    // One trial a delay, so that `repeat` alone sets the trials a step.
    let (_, json) = fixture_run(&["--repeat", "3", "--trials", "1"]);
    read_report("r.json", &json).expect("the report as written reads");
    type Mutation = fn(&mut serde_json::Value);
    let cases: [(&str, Mutation, &str); 8] = [
        (
            "cpu_loop[0].loops_per_s_mean",
            |d| d["cpu_loop"][0]["loops_per_s_mean"] = (-5.0).into(),
            "is -5: expected a figure from 0",
        ),
        (
            "cpu_loop[1].trials[2].loops_per_s_each[0]",
            |d| d["cpu_loop"][1]["trials"][2]["loops_per_s_each"][0] = 1e308.into(),
            "is 1.000e308: expected a figure from 0 to below 2^64",
        ),
        (
            "cpu_loop[0].median_trial",
            |d| d["cpu_loop"][0]["median_trial"] = 99.into(),
            "is 99: expected an index into the step's 3 trials (0 to 2)",
        ),
        (
            "storage_bandwidth[3].trials",
            |d| {
                let l = &mut d["storage_bandwidth"][3];
                l["trials"].as_array_mut().unwrap().pop();
                l["median_trial"] = 0.into();
            },
            "holds 2 trials: expected 3 (repeat 3 x 1 trials a delay)",
        ),
        (
            "storage_bandwidth[0].lat_p99_us",
            |d| d["storage_bandwidth"][0]["lat_p99_us"] = 2e19.into(),
            "is 2.000e19: expected",
        ),
        (
            "memory.dd_bandwidth.trials[1].samples[0]",
            |d| d["memory"]["dd_bandwidth"]["trials"][1]["samples"][0] = (-1.0).into(),
            "is -1: expected",
        ),
        (
            "memory.dd_bandwidth.elapsed_ns",
            |d| d["memory"]["dd_bandwidth"]["elapsed_ns"] = 0.into(),
            "expected the time the copy took, above 0",
        ),
        (
            "storage_bandwidth[5].trials[0].round",
            |d| d["storage_bandwidth"][5]["trials"][0]["round"] = 4.into(),
            "is 4: expected a round from 1 to 3",
        ),
    ];
    for (path, mutate, expected) in cases {
        let mut d: serde_json::Value = serde_json::from_str(&json).unwrap();
        mutate(&mut d);
        let text = serde_json::to_string_pretty(&d).unwrap();
        let e = read_report("m.json", &text).unwrap_err();
        assert_eq!(e.file, "m.json");
        assert!(e.message.starts_with(&format!("{path}: ")), "{path}: {e}");
        assert!(e.message.contains(expected), "{path}: {e}");
        // compare refuses it too, with the same words, exit 2
        let dir = tempfile::tempdir().unwrap();
        let (good, bad) = (dir.path().join("r.json"), dir.path().join("m.json"));
        std::fs::write(&good, &json).unwrap();
        std::fs::write(&bad, &text).unwrap();
        let out = quickbench()
            .arg("compare")
            .args([&good, &bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{path}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("m.json: {path}: ")), "{path}: {err}");
        assert!(out.stdout.is_empty(), "{path}");
    }
}
