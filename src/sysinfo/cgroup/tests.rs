//! Tests of the cgroup limits and throttling, on dumps of the layouts
//! met (v1, v2, hybrid, namespaces, bind mounts) and on this machine.

use super::*;
use std::fs;

/// A dump directory: files at absolute system paths under it.
struct Dump(tempfile::TempDir);

impl Dump {
    fn new() -> Dump {
        Dump(tempfile::tempdir().unwrap())
    }
    fn put(&self, abs: &str, text: &str) -> &Dump {
        let p = self.0.path().join(abs.trim_start_matches('/'));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
        self
    }
    fn sys(&self) -> Sysroot {
        Sysroot::new(self.0.path())
    }
}

const MI_V2: &str =
    "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

/// This machine's layout: v1 controllers, a v2 tree at unified/.
const MI_HYBRID: &str = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n\
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n\
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

const MI_V1: &str = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n\
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n\
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";

#[test]
fn proc_cgroup_lines() {
    let e = parse_proc_cgroup(
        "12:cpu,cpuacct:/docker/abc\n0::/user.slice/a:b.scope\nbad\n1:name=systemd:/x\n",
    );
    assert_eq!(e.len(), 3);
    assert_eq!(e[0].controllers, vec!["cpu", "cpuacct"]);
    assert_eq!(e[1].hierarchy_id, 0);
    assert!(e[1].controllers.is_empty());
    assert_eq!(e[1].path, "/user.slice/a:b.scope", "a ':' in the path");
}

#[test]
fn cpu_max_and_memory_values() {
    assert_eq!(parse_cpu_max("max 100000"), Some(LimitValue::NoLimit));
    assert_eq!(parse_cpu_max("max"), Some(LimitValue::NoLimit));
    assert_eq!(
        parse_cpu_max("150000 100000\n"),
        Some(LimitValue::Limit((150_000, 100_000)))
    );
    assert_eq!(
        parse_cpu_max("50000"),
        Some(LimitValue::Limit((50_000, DEFAULT_PERIOD_US)))
    );
    assert_eq!(parse_cpu_max("x 100000"), None);
    assert_eq!(parse_cpu_max("1 0"), None);
    assert_eq!(parse_cpu_max(""), None);
    assert_eq!(parse_memory_limit("max"), Some(LimitValue::NoLimit));
    assert_eq!(
        parse_memory_limit("9223372036854771712"),
        Some(LimitValue::NoLimit)
    );
    assert_eq!(
        parse_memory_limit("9223372036854710272"),
        Some(LimitValue::NoLimit),
        "64 KiB pages"
    );
    assert_eq!(
        parse_memory_limit("1073741824\n"),
        Some(LimitValue::Limit(1 << 30))
    );
    assert_eq!(parse_memory_limit("lots"), None);
}

#[test]
fn v2_nested_with_a_parent_tighter_than_the_child() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/kubepods/pod1/ctr\n")
        .put(
            "/sys/fs/cgroup/cgroup.controllers",
            "cpuset cpu io memory pids\n",
        )
        .put("/sys/fs/cgroup/kubepods/cpu.max", "max 100000\n")
        .put("/sys/fs/cgroup/kubepods/memory.max", "max\n")
        .put("/sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000\n")
        .put("/sys/fs/cgroup/kubepods/pod1/memory.max", "536870912\n")
        .put("/sys/fs/cgroup/kubepods/pod1/memory.current", "402653184\n")
        .put(
            "/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max",
            "200000 100000\n",
        )
        .put(
            "/sys/fs/cgroup/kubepods/pod1/ctr/memory.max",
            "1073741824\n",
        )
        .put(
            "/sys/fs/cgroup/kubepods/pod1/ctr/memory.current",
            "104857600\n",
        );
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::V2));
    let q = l.cpu_quota.clone().unwrap();
    assert_eq!((q.quota_us, q.period_us), (50_000, 100_000));
    assert_eq!(q.from_path, "/kubepods/pod1", "the parent's quota binds");
    assert_eq!(q.dir, "/sys/fs/cgroup/kubepods/pod1");
    assert_eq!(q.hierarchy, Hierarchy::V2);
    assert_eq!(l.cpus_allowed_by_quota, Some(0.5));
    assert_eq!(l.memory_limit_bytes, Some(512 << 20));
    assert_eq!(l.memory_limit_file.as_deref(), Some("memory.max"));
    assert_eq!(l.memory_from.as_deref(), Some("/kubepods/pod1"));
    assert_eq!(l.memory_usage_bytes, Some(384 << 20));
    assert_eq!(l.memory_headroom_bytes, Some(128 << 20));
    assert_eq!(l.memory_headroom_from.as_deref(), Some("/kubepods/pod1"));
    assert!(l.notes.is_empty(), "{:?}", l.notes);
    assert_eq!(cpus_within_quota(8, &l), 1);
}

#[test]
fn v2_headroom_of_a_parent_full_of_siblings() {
    // The child has the lower limit, the parent the lower headroom.
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/a/b\n")
        .put("/sys/fs/cgroup/a/memory.max", "2147483648\n")
        .put("/sys/fs/cgroup/a/memory.current", "2080374784\n")
        .put("/sys/fs/cgroup/a/b/memory.max", "1073741824\n")
        .put("/sys/fs/cgroup/a/b/memory.high", "805306368\n")
        .put("/sys/fs/cgroup/a/b/memory.current", "10485760\n");
    let l = read_limits(&d.sys());
    assert_eq!(l.memory_limit_bytes, Some(768 << 20));
    assert_eq!(l.memory_limit_file.as_deref(), Some("memory.high"));
    assert_eq!(l.memory_from.as_deref(), Some("/a/b"));
    assert_eq!(l.memory_usage_bytes, Some(10 << 20));
    assert_eq!(l.memory_headroom_bytes, Some(64 << 20));
    assert_eq!(l.memory_headroom_from.as_deref(), Some("/a"));
    assert_eq!(l.cpu_quota, None, "no cpu.max anywhere");
}

#[test]
fn v2_max_everywhere_and_missing_files_mean_no_limit() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put(
            "/proc/self/cgroup",
            "0::/user.slice/user-0.slice/session-1.scope\n",
        )
        .put("/sys/fs/cgroup/user.slice/cpu.max", "max 100000\n")
        .put("/sys/fs/cgroup/user.slice/memory.max", "max\n")
        .put("/sys/fs/cgroup/user.slice/memory.high", "max\n");
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::V2));
    assert!(!l.any(), "{l:?}");
    assert_eq!(l.memory_hierarchy, Some(Hierarchy::V2));
    assert!(l.notes.is_empty(), "{:?}", l.notes);
    assert_eq!(cpus_within_quota(4, &l), 4);
}

#[test]
fn v2_without_the_cpu_controller_enabled() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/a\n")
        .put("/sys/fs/cgroup/cgroup.controllers", "memory pids\n")
        .put("/sys/fs/cgroup/a/cpu.max", "1000 100000\n");
    assert_eq!(read_limits(&d.sys()).cpu_quota, None);
}

#[test]
fn v2_container_namespace_root_is_its_own_cgroup() {
    // docker with cgroupns=private: "0::/" and the mount's root "/";
    // the limits are on the namespace's root directory.
    let d = Dump::new();
    d.put(
        "/proc/self/mountinfo",
        "600 590 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw,nsdelegate\n",
    )
    .put("/proc/self/cgroup", "0::/\n")
    .put("/sys/fs/cgroup/cpu.max", "100000 100000\n")
    .put("/sys/fs/cgroup/memory.max", "1073741824\n")
    .put("/sys/fs/cgroup/memory.current", "52428800\n");
    let l = read_limits(&d.sys());
    let q = l.cpu_quota.unwrap();
    assert_eq!(q.from_path, "/");
    assert_eq!(q.dir, "/sys/fs/cgroup");
    assert_eq!(l.cpus_allowed_by_quota, Some(1.0));
    assert_eq!(l.memory_headroom_bytes, Some((1 << 30) - (50 << 20)));
}

#[test]
fn namespace_path_not_under_the_mount_root() {
    // "/" in /proc/self/cgroup while the mount (made outside the
    // namespace) has root /docker/abc: read at the mount's root, say so.
    let d = Dump::new();
    d.put(
        "/proc/self/mountinfo",
        "600 590 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    )
    .put("/proc/self/cgroup", "0::/\n")
    .put("/sys/fs/cgroup/cpu.max", "200000 100000\n");
    let l = read_limits(&d.sys());
    let q = l.cpu_quota.unwrap();
    assert_eq!(q.dir, "/sys/fs/cgroup");
    assert_eq!(l.cpus_allowed_by_quota, Some(2.0));
    assert_eq!(l.notes.len(), 2, "cpu and memory: {:?}", l.notes);
    assert!(l.notes[0].contains("cgroup namespace"), "{:?}", l.notes);
    // "/.." paths (a process outside the namespace root) too.
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/../../other\n");
    assert_eq!(read_limits(&d.sys()).notes.len(), 2);
}

#[test]
fn v1_bind_mounted_subtree_of_a_container() {
    // docker without cgroupns on v1: the mount's root is the
    // container's cgroup, /proc/self/cgroup shows the full path.
    let d = Dump::new();
    d.put(
        "/proc/self/mountinfo",
        "700 690 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n\
         701 690 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
    )
    .put(
        "/proc/self/cgroup",
        "5:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n",
    )
    .put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "150000\n")
    .put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
    .put(
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        "1073741824\n",
    )
    .put("/sys/fs/cgroup/memory/memory.usage_in_bytes", "73400320\n");
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::V1));
    let q = l.cpu_quota.clone().unwrap();
    assert_eq!(q.from_path, "/docker/abc");
    assert_eq!(q.hierarchy, Hierarchy::V1);
    assert_eq!(l.cpus_allowed_by_quota, Some(1.5));
    assert_eq!(cpus_within_quota(8, &l), 2, "1.5 rounds up");
    assert_eq!(cpus_within_quota(1, &l), 1);
    assert_eq!(l.memory_limit_bytes, Some(1 << 30));
    assert_eq!(
        l.memory_limit_file.as_deref(),
        Some("memory.limit_in_bytes")
    );
    assert_eq!(l.memory_headroom_bytes, Some((1 << 30) - (70 << 20)));
    assert!(l.notes.is_empty(), "{:?}", l.notes);
}

#[test]
fn v1_nested_unlimited_child_under_a_limited_parent() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V1)
        .put(
            "/proc/self/cgroup",
            "4:memory:/lxc/c1/app\n2:cpu,cpuacct:/lxc/c1/app\n",
        )
        .put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
        .put("/sys/fs/cgroup/cpu,cpuacct/lxc/cpu.cfs_quota_us", "-1\n")
        .put(
            "/sys/fs/cgroup/cpu,cpuacct/lxc/c1/cpu.cfs_quota_us",
            "100000\n",
        )
        .put(
            "/sys/fs/cgroup/cpu,cpuacct/lxc/c1/cpu.cfs_period_us",
            "50000\n",
        )
        .put(
            "/sys/fs/cgroup/cpu,cpuacct/lxc/c1/app/cpu.cfs_quota_us",
            "-1\n",
        )
        .put(
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        )
        .put(
            "/sys/fs/cgroup/memory/lxc/c1/memory.limit_in_bytes",
            "2147483648\n",
        )
        .put(
            "/sys/fs/cgroup/memory/lxc/c1/memory.usage_in_bytes",
            "1073741824\n",
        )
        .put(
            "/sys/fs/cgroup/memory/lxc/c1/app/memory.limit_in_bytes",
            "9223372036854771712\n",
        )
        .put(
            "/sys/fs/cgroup/memory/lxc/c1/app/memory.usage_in_bytes",
            "1048576\n",
        );
    let l = read_limits(&d.sys());
    let q = l.cpu_quota.clone().unwrap();
    assert_eq!((q.quota_us, q.period_us), (100_000, 50_000));
    assert_eq!(q.from_path, "/lxc/c1");
    assert_eq!(q.dir, "/sys/fs/cgroup/cpu,cpuacct/lxc/c1");
    assert_eq!(
        q.cpu_stat_file(),
        "/sys/fs/cgroup/cpu,cpuacct/lxc/c1/cpu.stat"
    );
    assert_eq!(l.cpus_allowed_by_quota, Some(2.0));
    assert_eq!(l.memory_limit_bytes, Some(2 << 30));
    assert_eq!(l.memory_from.as_deref(), Some("/lxc/c1"));
    assert_eq!(l.memory_usage_bytes, Some(1 << 30));
    assert_eq!(l.memory_headroom_bytes, Some(1 << 30));
}

#[test]
fn hybrid_reads_v1_controllers_beside_the_v2_tree() {
    // This machine: cpu on v1 at /, memory on v1 deeper, v2 at unified/.
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_HYBRID)
        .put(
            "/proc/self/cgroup",
            "9:name=systemd:/\n4:memory:/process_api/9027\n1:cpu:/\n2:cpuacct:/\n0::/\n",
        )
        .put("/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n")
        .put("/sys/fs/cgroup/unified/cpu.max", "1 100000\n")
        .put("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n")
        .put("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
        .put(
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n",
        )
        .put(
            "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
            "4294967296\n",
        )
        .put(
            "/sys/fs/cgroup/memory/process_api/memory.usage_in_bytes",
            "1073741824\n",
        )
        .put(
            "/sys/fs/cgroup/memory/process_api/9027/memory.limit_in_bytes",
            "9223372036854771712\n",
        );
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::Hybrid));
    assert_eq!(
        l.cpu_quota, None,
        "v1 cpu has no quota; v2 cpu.max is not ours"
    );
    assert_eq!(l.memory_hierarchy, Some(Hierarchy::V1));
    assert_eq!(l.memory_limit_bytes, Some(4 << 30));
    assert_eq!(l.memory_from.as_deref(), Some("/process_api"));
    assert_eq!(l.memory_headroom_bytes, Some(3 << 30));
    assert!(l.notes.is_empty(), "{:?}", l.notes);
}

#[test]
fn hybrid_with_cpu_on_the_v2_tree() {
    // cpu not bound to any v1 hierarchy: it lives in the v2 tree.
    let d = Dump::new();
    d.put(
        "/proc/self/mountinfo",
        "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n\
         41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
    )
    .put("/proc/self/cgroup", "4:memory:/\n0::/bench\n")
    .put("/sys/fs/cgroup/unified/cgroup.controllers", "cpu\n")
    .put("/sys/fs/cgroup/unified/bench/cpu.max", "100000 100000\n");
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::Hybrid));
    let q = l.cpu_quota.unwrap();
    assert_eq!(q.hierarchy, Hierarchy::V2);
    assert_eq!(q.dir, "/sys/fs/cgroup/unified/bench");
    assert_eq!(l.memory_limit_bytes, None);
}

#[test]
fn malformed_and_unreadable_files_are_named() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/a\n")
        .put("/sys/fs/cgroup/a/cpu.max", "lots 100000\n");
    // A directory where a file is expected: reading it fails (EISDIR),
    // as an unreadable file would, without needing a non-root user.
    fs::create_dir_all(d.0.path().join("sys/fs/cgroup/a/memory.max")).unwrap();
    let l = read_limits(&d.sys());
    assert_eq!(l.cpu_quota, None);
    assert_eq!(l.memory_limit_bytes, None);
    assert_eq!(l.notes.len(), 2, "{:?}", l.notes);
    assert!(
        l.notes[0].contains("sys/fs/cgroup/a/cpu.max"),
        "{:?}",
        l.notes
    );
    assert!(l.notes[0].contains("\"lots 100000\""), "{:?}", l.notes);
    assert!(
        l.notes[1].contains("sys/fs/cgroup/a/memory.max"),
        "{:?}",
        l.notes
    );
    assert!(l.notes[1].contains("run as root"), "{:?}", l.notes);
}

#[test]
fn no_cgroup_filesystem_or_no_proc() {
    let d = Dump::new();
    d.put(
        "/proc/self/mountinfo",
        "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
    )
    .put("/proc/self/cgroup", "0::/\n");
    let l = read_limits(&d.sys());
    assert_eq!(l, CgroupLimits::default());
    // No /proc: live, /proc is not mounted, and the notes say so...
    let d = Dump::new();
    let l = read_limits_noting(&d.sys(), true);
    assert_eq!(l.version, None);
    assert!(l.notes[0].contains("proc/self/mountinfo"), "{:?}", l.notes);
    // ... while a dump without it just recorded no cgroup.
    assert_eq!(read_limits(&d.sys()), CgroupLimits::default());
    // Mounted but no /proc/self/cgroup.
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2);
    let l = read_limits_noting(&d.sys(), true);
    assert_eq!(l.version, Some(CgroupVersion::V2));
    assert!(l.notes[0].contains("proc/self/cgroup"), "{:?}", l.notes);
    let l = read_limits(&d.sys());
    assert_eq!(l.version, Some(CgroupVersion::V2));
    assert_eq!(l.notes, Vec::<String>::new());
}

#[test]
fn a_dump_with_procfs_mounted_in_it_is_not_read() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped a_dump_with_procfs_mounted_in_it_is_not_read: mounting needs root");
        return;
    }
    // A root filesystem read with --sysroot while its /proc is mounted:
    // its proc/self is this test process, whose cgroup mounts (listed in
    // its mountinfo, with /sys beside) are the reading machine's.
    let d = Dump::new();
    fs::create_dir(d.0.path().join("proc")).unwrap();
    std::os::unix::fs::symlink("/sys", d.0.path().join("sys")).unwrap();
    let proc_dir = d.0.path().join("proc");
    let c = |p: &std::path::Path| std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let (src, target, fstype) = (c("proc".as_ref()), c(&proc_dir), c("proc".as_ref()));
    // SAFETY: the strings are NUL-terminated and outlive the call.
    let r = unsafe {
        libc::mount(
            src.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "mount proc: {}", std::io::Error::last_os_error());
    let ours = read_limits(&Sysroot::live());
    let l = read_limits(&d.sys());
    // SAFETY: as above.
    let r = unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    assert_eq!(r, 0, "umount {}", proc_dir.display());
    assert!(
        ours.version.is_some(),
        "this machine mounts no cgroup filesystem: the check below proves nothing"
    );
    assert_eq!(l, CgroupLimits::default());
}

#[test]
fn only_a_named_v1_hierarchy_is_not_v1() {
    let m = parse_mountinfo(
        "40 31 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n",
    );
    assert_eq!(version_of(&m), None);
}

#[test]
fn cpu_stat_v1_and_v2() {
    let v2 = "usage_usec 8000000\nuser_usec 7000000\nsystem_usec 1000000\nnr_periods 50\nnr_throttled 25\nthrottled_usec 2500000\nnr_bursts 0\nburst_usec 0\n";
    assert_eq!(
        parse_cpu_stat(v2),
        Some(ThrottleCounters {
            periods: 50,
            throttled_periods: 25,
            throttled_us: 2_500_000
        })
    );
    let v1 = "nr_periods 10\nnr_throttled 4\nthrottled_time 123456789\nnr_bursts 0\nburst_time 0\n";
    assert_eq!(parse_cpu_stat(v1).unwrap().throttled_us, 123_456);
    // v2 without the cpu controller: usage only.
    assert_eq!(parse_cpu_stat("usage_usec 5\nuser_usec 3\n"), None);
}

#[test]
fn throttle_deltas_and_share() {
    let a = ThrottleCounters {
        periods: 100,
        throttled_periods: 10,
        throttled_us: 1_000_000,
    };
    let b = ThrottleCounters {
        periods: 110,
        throttled_periods: 20,
        throttled_us: 2_000_000,
    };
    let t = Throttle::between(&a, &b);
    assert_eq!(
        (t.periods, t.throttled_periods, t.throttled_us),
        (10, 10, 1_000_000)
    );
    // 1 s throttled over 1 s on 2 CPUs needed: half.
    assert_eq!(t.percent_of_needed(1_000_000_000, 2.0), 50.0);
    assert_eq!(t.percent_of_needed(1_000_000_000, 0.5), 100.0, "capped");
    assert_eq!(t.percent_of_needed(0, 2.0), 0.0);
    // Counters reset (cgroup recreated): 0, not a huge number.
    assert_eq!(Throttle::between(&b, &a), Throttle::default());
}

#[test]
fn throttle_sampler_on_a_dump() {
    let d = Dump::new();
    d.put("/proc/self/mountinfo", MI_V2)
        .put("/proc/self/cgroup", "0::/q\n")
        .put("/sys/fs/cgroup/q/cpu.max", "100000 100000\n")
        .put(
            "/sys/fs/cgroup/q/cpu.stat",
            "nr_periods 1\nnr_throttled 0\nthrottled_usec 0\n",
        );
    let sys = d.sys();
    let l = read_limits(&sys);
    let s = ThrottleSampler::start(&sys, &l).unwrap();
    assert_eq!(s.file(), "/sys/fs/cgroup/q/cpu.stat");
    d.put(
        "/sys/fs/cgroup/q/cpu.stat",
        "nr_periods 11\nnr_throttled 9\nthrottled_usec 450000\n",
    );
    let t = s.finish().unwrap();
    assert_eq!(
        (t.periods, t.throttled_periods, t.throttled_us),
        (10, 9, 450_000)
    );
    assert!(ThrottleSampler::start(&sys, &CgroupLimits::default()).is_none());
}

#[test]
fn limits_round_trip_through_json() {
    let l = CgroupLimits {
        version: Some(CgroupVersion::Hybrid),
        cpu_quota: Some(CpuQuota {
            quota_us: 1,
            period_us: 2,
            hierarchy: Hierarchy::V1,
            from_path: "/".into(),
            dir: "/sys/fs/cgroup/cpu".into(),
        }),
        cpus_allowed_by_quota: Some(0.5),
        ..CgroupLimits::default()
    };
    let j = serde_json::to_string(&l).unwrap();
    assert!(j.contains("\"version\":\"hybrid\""), "{j}");
    assert_eq!(serde_json::from_str::<CgroupLimits>(&j).unwrap(), l);
}

#[test]
fn live_limits_are_consistent() {
    let l = read_limits(&Sysroot::live());
    if let Some(q) = &l.cpu_quota {
        assert!(q.period_us > 0 && q.dir.starts_with('/'), "{l:?}");
        assert_eq!(l.cpus_allowed_by_quota, Some(q.cpus()));
    }
    if let (Some(h), Some(m)) = (l.memory_headroom_bytes, l.memory_limit_bytes) {
        assert!(h <= m, "{l:?}");
    }
    let cpus = crate::sysinfo::usable_cpus(&Sysroot::live());
    let n = cpus_within_quota(cpus, &l);
    assert!(n >= 1 && n <= cpus);
}

#[test]
fn the_limit_line_reads_back() {
    let q = |quota_us, period_us, hierarchy| CpuQuota {
        quota_us,
        period_us,
        hierarchy,
        from_path: String::new(),
        dir: String::new(),
    };
    for (quota, line) in [
        (
            q(100_000, 100_000, Hierarchy::V2),
            "Limited to 1 CPU by the cgroup quota (cpu.max 100000 100000)",
        ),
        (
            q(150_000, 100_000, Hierarchy::V1),
            "Limited to 1.5 CPUs by the cgroup quota (cpu.cfs_quota_us 150000, cpu.cfs_period_us 100000)",
        ),
    ] {
        assert_eq!(quota.limit_line(), line);
        assert_eq!(CpuQuota::parse_limit_line(line), Some(quota));
    }
    // A count that does not match its files is not the renderer's.
    assert_eq!(
        CpuQuota::parse_limit_line("Limited to 2 CPUs by the cgroup quota (cpu.max 100000 100000)"),
        None
    );
}
