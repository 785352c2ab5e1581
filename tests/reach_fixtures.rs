//! Fixture sysroots for the device check (did our bytes reach the devices?): the layout under real
//! stacks (mirror, parity, dm, partitions), the local backing of a FUSE
//! mount read from mountinfo, and the plan-time cache caveats.

mod common_blockdev;

use std::path::Path;

use common_blockdev::*;
use quickbench::blockdev::BlockStat;
use quickbench::blockdev::{
    cache_caveat, check_layout, device_layout, fuse_backing, resolve_dir, BackingFrom, CacheCaveat,
    TargetKind,
};
use quickbench::conditions::reach::{judge, ReachVerdict};
use quickbench::dd_io::{DeviceDelta, Direction};

fn names(v: &[quickbench::blockdev::LayoutLeaf]) -> Vec<(&str, Option<&str>, f64)> {
    v.iter()
        .map(|l| {
            (
                l.device.as_str(),
                l.partition_of.as_deref(),
                l.write_copies_min,
            )
        })
        .collect()
}

fn writes(dev: &str, bytes: u64) -> DeviceDelta {
    DeviceDelta {
        device: dev.into(),
        delta: BlockStat {
            read_ios: 0,
            read_merges: 0,
            read_sectors: 0,
            read_ticks_ms: 0,
            write_ios: bytes / 4096,
            write_merges: 0,
            write_sectors: bytes / 512,
            write_ticks_ms: 0,
            busy_ms: 0,
            time_in_queue_ms: 0,
            flush_ios: None,
        },
    }
}

#[test]
fn lvm_on_luks_on_a_raid1_reaches_both_partitions_twice() {
    let fx = Fx::new();
    lvm_luks_md(&fx);
    let t = resolve_dir(&fx.sys(), Path::new("/var/lib")).unwrap();
    let l = device_layout(&fx.sys(), &t.members);
    assert_eq!(l.roots, vec!["dm-1"]);
    // No md/raid_disks in the fixture: the slaves are counted.
    assert_eq!(
        names(&l.leaves),
        vec![("sda1", Some("sda"), 2.0), ("sdb1", Some("sdb"), 2.0)]
    );
    assert_eq!(l.notes.len(), 1);
    assert!(l.notes[0].starts_with("md0: raid1"), "{:?}", l.notes);
    // A healthy mirror: each partition wrote our 64 MiB.
    let d = [writes("sda1", 64 << 20), writes("sdb1", 64 << 20)];
    let r = judge(Direction::Write, 64 << 20, &d, &l);
    assert_eq!(r.verdict, ReachVerdict::Reached, "{r:?}");
    assert_eq!(r.device_equivalent_bytes, Some(64 << 20));
}

#[test]
fn raid5_with_a_spare_and_a_missing_member() {
    let fx = Fx::new();
    fx.sata("sda", 0, 8, 0, TB4, "A");
    fx.sata("sdb", 1, 8, 16, TB4, "B");
    fx.sata("sdc", 2, 8, 32, TB4, "C");
    fx.sata("sdd", 3, 8, 48, TB4, "D");
    fx.virt("md5", 9, 5, 3 * TB4);
    let md = fx.devpath("md5");
    fx.file(&format!("{md}/md/level"), "raid5\n");
    // Four slots, one missing; sdd is a spare (listed, never written).
    fx.file(&format!("{md}/md/raid_disks"), "4\n");
    fx.file(&format!("{md}/md/degraded"), "1\n");
    for s in ["sda", "sdb", "sdc", "sdd"] {
        fx.stack("md5", s);
    }
    let l = device_layout(&fx.sys(), &["md5".to_string()]);
    // 3 live of 4, 3 data: a full stripe writes our bytes once.
    assert!(l.leaves.iter().all(|x| x.write_copies_min == 1.0), "{l:?}");
    assert!(l.notes.is_empty(), "{:?}", l.notes);
    fx.file(&format!("{md}/md/degraded"), "0\n");
    let l = device_layout(&fx.sys(), &["md5".to_string()]);
    assert!(l
        .leaves
        .iter()
        .all(|x| (x.write_copies_min - 4.0 / 3.0).abs() < 1e-9));
    assert_eq!(l.leaf_names(), vec!["sda", "sdb", "sdc", "sdd"]);
}

#[test]
fn a_plain_partition_is_its_own_leaf() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&["20 1 8:1 / / rw - ext4 /dev/sda1 rw"]);
    let t = resolve_dir(&fx.sys(), Path::new("/srv")).unwrap();
    let l = check_layout(&fx.sys(), &t, &[]);
    assert_eq!(names(&l.leaves), vec![("sda1", Some("sda"), 1.0)]);
    assert_eq!(cache_caveat(&t, &[]), None);
}

/// What bindfs 1.14.7 really writes (read on this kernel, `bindfs e/data b`
/// run in /tmp/exp): type `fuse`, the absolute source directory as source.
const BINDFS: &[&str] = &[
    "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
    "46 20 7:1 / /tmp/exp/e rw,relatime - ext4 /dev/loop1 rw",
    "47 20 0:40 / /tmp/exp/b rw,nosuid,nodev,relatime - fuse /tmp/exp/e/data rw,user_id=0,group_id=0,default_permissions,allow_other",
    "48 20 0:41 / /mnt/ssh rw - fuse.sshfs me@host:/srv rw,user_id=0,group_id=0",
    "49 20 0:42 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2",
    "50 20 8:17 / /mnt/j rw - ext4 /dev/sdb1 rw,data=journal",
    "51 20 0:43 / /mnt/t rw - tmpfs tmpfs rw",
    "52 20 0:44 / /mnt/pool rw - fuse.mergerfs /tmp/exp/e/a:/srv/b rw",
];

fn bindfs_fixture() -> Fx {
    let fx = Fx::new();
    two_sata(&fx);
    fx.virt("loop1", 7, 1, 409_600);
    fx.mountinfo(BINDFS);
    fx
}

#[test]
fn bindfs_source_leads_to_the_loop_device() {
    let fx = bindfs_fixture();
    let sys = fx.sys();
    let t = resolve_dir(&sys, Path::new("/tmp/exp/b")).unwrap();
    assert_eq!((t.fs_type.as_str(), t.kind), ("fuse", TargetKind::Network));
    let b = fuse_backing(&sys, &t);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].path, Path::new("/tmp/exp/e/data"));
    assert_eq!(b[0].from, BackingFrom::MountSource);
    assert_eq!(b[0].members, vec!["loop1"]);
    let l = check_layout(&sys, &t, &b);
    assert_eq!(l.leaf_names(), vec!["loop1"]);
    let c = cache_caveat(&t, &b).unwrap();
    assert_eq!(
        c,
        CacheCaveat::Fuse {
            source: "/tmp/exp/e/data".into(),
            checked_devices: vec!["loop1".into()]
        }
    );
    assert!(c.reason().contains("loop1"), "{}", c.reason());
}

#[test]
fn mergerfs_branches_are_each_resolved() {
    let fx = bindfs_fixture();
    let sys = fx.sys();
    let t = resolve_dir(&sys, Path::new("/mnt/pool")).unwrap();
    let b = fuse_backing(&sys, &t);
    let members: Vec<&str> = b.iter().map(|x| x.members[0].as_str()).collect();
    assert_eq!(members, vec!["loop1", "sda1"]);
    assert_eq!(
        check_layout(&sys, &t, &b).leaf_names(),
        vec!["loop1", "sda1"]
    );
}

#[test]
fn remote_fuse_network_journal_and_memory_caveats() {
    let fx = bindfs_fixture();
    let sys = fx.sys();
    let caveat = |dir: &str| {
        let t = resolve_dir(&sys, Path::new(dir)).unwrap();
        let b = fuse_backing(&sys, &t);
        cache_caveat(&t, &b)
    };
    // sshfs: `host:/srv` is not the local /srv.
    let ssh = caveat("/mnt/ssh").unwrap();
    assert_eq!(
        ssh,
        CacheCaveat::Fuse {
            source: "me@host:/srv".into(),
            checked_devices: vec![]
        }
    );
    assert!(ssh.reason().contains("no local device"), "{}", ssh.reason());
    assert!(
        matches!(caveat("/mnt/nfs"), Some(CacheCaveat::Network { fs_type, .. }) if fs_type == "nfs4")
    );
    assert!(matches!(
        caveat("/mnt/j/x"),
        Some(CacheCaveat::JournaledData { .. })
    ));
    assert!(matches!(caveat("/mnt/t"), Some(CacheCaveat::Memory { .. })));
    assert_eq!(caveat("/tmp/exp/e/data"), None);
    // Round trip, as the JSON will carry it.
    let json = serde_json::to_string(&ssh).unwrap();
    assert!(json.contains(r#""kind":"fuse""#), "{json}");
    assert_eq!(serde_json::from_str::<CacheCaveat>(&json).unwrap(), ssh);
}

#[test]
fn a_source_that_is_no_path_falls_back_to_the_daemon_arguments() {
    let fx = bindfs_fixture();
    let mut lines = BINDFS.to_vec();
    lines.push("53 20 0:45 / /mnt/b rw - fuse.passthrough qbtest rw,user_id=0");
    fx.mountinfo(&lines);
    fx.dir("/srv/data");
    let abs_link = |abs: &str, to: &str| {
        let p = fx.tmp.path().join(abs.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(to, p).unwrap();
    };
    // pid 100 names the mount point but serves nothing (`ls /mnt/b`).
    fx.file("/proc/100/cmdline", "ls\0/mnt/b\0");
    abs_link("/proc/100/cwd", "/srv");
    abs_link("/proc/100/fd/0", "/dev/null");
    // pid 4321 is the daemon, started in /srv with relative paths.
    fx.file(
        "/proc/4321/cmdline",
        "passthrough\0-o\0ro\0-f\0data\0../mnt/b\0nosuch\0",
    );
    abs_link("/proc/4321/cwd", "/srv");
    abs_link("/proc/4321/fd/3", "/dev/fuse");
    let sys = fx.sys();
    let t = resolve_dir(&sys, Path::new("/mnt/b")).unwrap();
    let b = fuse_backing(&sys, &t);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].path, Path::new("/srv/data"));
    assert_eq!(b[0].from, BackingFrom::DaemonArgument { pid: 4321 });
    assert_eq!(b[0].members, vec!["sda1"]);
}
