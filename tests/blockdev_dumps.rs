//! Dumps in util-linux's layout (`tests/ts/lsblk/mk-input.sh`: no
//! `/sys/class`, no `subsystem` links, `/dev` nodes as files of udev
//! properties, `/proc/version`) resolve as the live layout does: each
//! storage layout is built twice, once as the kernel shows it and once as
//! such a dump, and every answer must be the same and the expected one.

mod common_blockdev;

use std::path::Path;
use std::process::Command;

use common_blockdev::{two_sata, Fx};
use quickbench::blockdev::{
    block_stat_path, device_stack, read_block_stats, resolve_dir, storage_table, Target,
};
use quickbench::report::text::{notes_line, stack_lines, table_lines};

const PROC_VERSION: &str = "Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30)";

/// The layout built twice: (as the kernel shows it, as a util-linux dump).
fn both(build: fn(&Fx)) -> (Fx, Fx) {
    let live = Fx::new();
    build(&live);
    let dump = Fx::new();
    build(&dump);
    dump.util_linux_dump(PROC_VERSION);
    assert!(!dump.tmp.path().join("sys/class").exists());
    (live, dump)
}

/// Resolves `dir` in both, checks that they agree (target, stack, table,
/// I/O counters) and returns the dump's target and stack.
fn same(live: &Fx, dump: &Fx, dir: &str) -> (Target, Option<Vec<String>>) {
    let (ls, ds) = (live.sys(), dump.sys());
    let lt = resolve_dir(&ls, Path::new(dir)).unwrap();
    let dt = resolve_dir(&ds, Path::new(dir)).unwrap();
    assert_eq!(lt, dt, "{dir}");
    let stack = device_stack(&ds, &dt).map(|s| stack_lines(&s));
    assert_eq!(
        device_stack(&ls, &lt).map(|s| stack_lines(&s)),
        stack,
        "{dir}"
    );
    assert_eq!(
        table_lines(&storage_table(&ls)),
        table_lines(&storage_table(&ds))
    );
    let counters = read_block_stats(&ds, &dt.devices);
    assert!(
        dt.devices.is_empty() || counters.is_some(),
        "{dir}: no stat for {:?} at {:?}",
        dt.devices,
        dt.devices
            .iter()
            .map(|d| block_stat_path(&ds, d))
            .collect::<Vec<_>>()
    );
    assert_eq!(read_block_stats(&ls, &lt.devices), counters);
    (dt, stack)
}

#[test]
fn sata_partition_resolves_to_its_disk() {
    let (live, dump) = both(|fx| {
        two_sata(fx);
        fx.mountinfo(&[
            "20 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
            "21 20 8:17 / /data rw,relatime shared:2 - xfs /dev/sdb1 rw",
        ]);
    });
    let (t, stack) = same(&live, &dump, "/data/x");
    assert_eq!(t.members, vec!["sdb1"]);
    assert_eq!(t.devices, vec!["sdb"]);
    assert_eq!(t.notes, vec!["sdb1: partition of sdb"]);
    assert_eq!(stack, None);
    let (t, _) = same(&live, &dump, "/");
    assert_eq!(t.display, "sda");
    assert_eq!(
        table_lines(&storage_table(&dump.sys())),
        vec![
            "Name      Bus     Size(GB)  QDepth  Model",
            "sda       scsi       3726       32  WDC WD40EFRX-68N",
            "sdb       scsi       3726       32  WDC WD40EFRX-68N",
        ]
    );
}

#[test]
fn nvme_partition_resolves_to_the_namespace() {
    let (live, dump) = both(|fx| {
        let ctrl = "/sys/devices/pci0000:00/0000:00:1c.4/0000:05:00.0/nvme/nvme0";
        fx.file(&format!("{ctrl}/model"), "KINGSTON SFYR2S1T0\n");
        fx.disk(ctrl, "nvme", "nvme0n1", 259, 0, 2_000_409_264);
        fx.part("nvme0n1", "nvme0n1p1", 259, 1, 1_048_576, 1);
        fx.part("nvme0n1", "nvme0n1p2", 259, 2, 1_999_358_608, 2);
        fx.mountinfo(&[
            "22 1 259:1 / / rw - ext4 /dev/nvme0n1p1 rw",
            "23 22 259:2 / /home/work rw,noatime - xfs /dev/nvme0n1p2 rw",
        ]);
    });
    let (t, _) = same(&live, &dump, "/home/work/src");
    assert_eq!(t.members, vec!["nvme0n1p2"]);
    assert_eq!(t.display, "nvme0n1");
    assert_eq!(t.notes, vec!["nvme0n1p2: partition of nvme0n1"]);
    assert_eq!(
        table_lines(&storage_table(&dump.sys()))[1],
        "nvme0n1   nvme        953        ?  KINGSTON SFYR2S1T0"
    );
}

/// An LVM volume over four loop devices, as util-linux's simple-lvm dump
/// has it, here mounted.
fn lvm_over_loops(fx: &Fx) {
    two_sata(fx);
    for i in 0..4 {
        fx.loop_dev(&format!("loop{i}"), i, 20_480, &format!("/tmp/foo-{i}.img"));
    }
    fx.dm(
        0,
        "vg_foo-lv_foo",
        "LVM-8Bwyu3HKrv5sSNTifv6uCZ5XTkJoMXeDqnM2y0UBlhvqnWI9c7wnycMqKT4EPnd4",
        65_536,
        &["loop0", "loop1", "loop2", "loop3"],
    );
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "40 20 253:0 / /mnt/lv rw,relatime - ext4 /dev/mapper/vg_foo-lv_foo rw",
    ]);
}

#[test]
fn lvm_over_loops_names_the_volume_and_every_backing_file() {
    let (live, dump) = both(lvm_over_loops);
    let (t, stack) = same(&live, &dump, "/mnt/lv/a");
    assert_eq!(t.members, vec!["dm-0"]);
    assert_eq!(t.devices, vec!["dm-0"]);
    assert!(t.stacked);
    assert_eq!(
        t.notes,
        vec![
            "dm-0: LVM volume /dev/mapper/vg_foo-lv_foo",
            "loop0: backed by /tmp/foo-0.img",
            "loop1: backed by /tmp/foo-1.img",
            "loop2: backed by /tmp/foo-2.img",
            "loop3: backed by /tmp/foo-3.img",
        ]
    );
    assert_eq!(
        stack.unwrap(),
        vec![
            "NAME          SIZE TYPE MOUNTPOINT",
            "vg_foo-lv_foo  32M lvm  /mnt/lv",
            "├─loop0        10M loop ",
            "├─loop1        10M loop ",
            "├─loop2        10M loop ",
            "└─loop3        10M loop ",
            &notes_line(&t.notes),
        ]
    );
}

#[test]
fn lvm_without_its_dev_mapper_file_still_resolves() {
    // A dump whose /dev files are missing: MAJ:MIN and dm/name suffice.
    let (live, dump) = both(lvm_over_loops);
    std::fs::remove_dir_all(dump.tmp.path().join("dev")).unwrap();
    let (t, _) = same(&live, &dump, "/mnt/lv");
    assert_eq!(t.display, "dm-0");
}

#[test]
fn loop_device_names_its_backing_file() {
    let (live, dump) = both(|fx| {
        two_sata(fx);
        fx.loop_dev("loop0", 0, 524_288, "/var/tmp/img.ext4");
        fx.mountinfo(&[
            "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
            "41 20 7:0 / /mnt/img rw - ext4 /dev/loop0 rw",
        ]);
    });
    let (t, stack) = same(&live, &dump, "/mnt/img");
    assert_eq!(t.devices, vec!["loop0"]);
    assert!(t.stacked);
    assert_eq!(t.notes, vec!["loop0: backed by /var/tmp/img.ext4"]);
    assert_eq!(
        stack.unwrap(),
        vec![
            "NAME   SIZE TYPE MOUNTPOINT",
            "loop0  256M loop /mnt/img",
            "Notes     : loop0: backed by /var/tmp/img.ext4",
        ]
    );
}

/// bcachefs on two partitions of one disk, as util-linux's
/// multi-devs-bcachefs dump has it: MAJ:MIN is the first member only.
fn bcachefs_two_partitions(fx: &Fx) {
    two_sata(fx);
    let host = "/sys/devices/pseudo_0/adapter0/host6/target6:0:0/6:0:0:0";
    fx.file(&format!("{host}/model"), "scsi_debug      \n");
    fx.disk(host, "scsi", "sdc", 8, 32, 1_024_000);
    fx.part("sdc", "sdc1", 8, 33, 512_000, 1);
    fx.part("sdc", "sdc2", 8, 34, 509_952, 2);
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "861 20 8:33 / /mnt/test rw,relatime shared:994 - bcachefs /dev/sdc1:/dev/sdc2 rw,noinodes_32bit",
    ]);
}

#[test]
fn bcachefs_source_names_every_member() {
    let (live, dump) = both(bcachefs_two_partitions);
    let (t, stack) = same(&live, &dump, "/mnt/test");
    assert_eq!(t.members, vec!["sdc1", "sdc2"]);
    assert_eq!(t.devices, vec!["sdc"]);
    assert_eq!(t.display, "sdc");
    assert!(t.stacked);
    assert_eq!(
        t.notes,
        vec![
            "bcachefs: members sdc1, sdc2",
            "sdc1: partition of sdc",
            "sdc2: partition of sdc",
        ]
    );
    assert_eq!(
        stack.unwrap(),
        vec![
            "NAME   SIZE TYPE MOUNTPOINT",
            "sdc1   250M part /mnt/test",
            "└─sdc  500M disk ",
            "sdc2   249M part ",
            "└─sdc  500M disk ",
            &notes_line(&t.notes),
        ]
    );
}

#[test]
fn bcachefs_members_from_sysfs_when_the_source_names_one() {
    let (live, dump) = both(|fx| {
        bcachefs_two_partitions(fx);
        let fs = "/sys/fs/bcachefs/84684e5c-1a29-4dd5-98cc-a9e175a7ce2e";
        fx.link(&format!("{fs}/dev-0/block"), &fx.devpath("sdc1"));
        fx.link(&format!("{fs}/dev-1/block"), &fx.devpath("sdc2"));
        fx.mountinfo(&["861 1 8:33 / / rw - bcachefs /dev/sdc1 rw"]);
    });
    let (t, _) = same(&live, &dump, "/srv");
    assert_eq!(t.members, vec!["sdc1", "sdc2"]);
    assert_eq!(t.devices, vec!["sdc"]);
}

#[test]
fn btrfs_on_two_disks() {
    let (live, dump) = both(|fx| {
        two_sata(fx);
        let fsid = "/sys/fs/btrfs/5f3c1b7e-2a64-4f0b-9c1e-7d2a7e8b9c10";
        fx.link(&format!("{fsid}/devices/sda1"), &fx.devpath("sda1"));
        fx.link(&format!("{fsid}/devices/sdb1"), &fx.devpath("sdb1"));
        fx.mountinfo(&["20 1 0:31 /@ / rw - btrfs /dev/sda1 rw,subvol=/@"]);
    });
    let (t, _) = same(&live, &dump, "/home");
    assert_eq!(t.devices, vec!["sda", "sdb"]);
    assert_eq!(t.notes[0], "btrfs: members sda1, sdb1");
}

#[test]
fn the_binary_reads_a_util_linux_dump() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.loop_dev("loop0", 0, 524_288, "/var/tmp/img.ext4");
    fx.file("/proc/meminfo", "MemTotal:       16303412 kB\n");
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "21 20 8:17 / /data rw - xfs /dev/sdb1 rw",
        "41 20 7:0 / /mnt/img rw - ext4 /dev/loop0 rw",
    ]);
    fx.util_linux_dump(PROC_VERSION);
    let json = |dir: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_quickbench"))
            .arg("--sysroot")
            .arg(fx.tmp.path())
            .args(["--json", "--only", "storage,io", "--dir", dir])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        v
    };
    let v = json("/data/bench");
    assert_eq!(
        v["quickbench"]["kernel"],
        "Linux 6.1.0-26-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30) GNU/Linux (host name and machine not recorded in the dump)"
    );
    assert_eq!(v["storage_target"]["devices"], serde_json::json!(["sdb"]));
    assert_eq!(
        v["storage_target"]["notes"],
        serde_json::json!(["sdb1: partition of sdb"])
    );
    let v = json("/mnt/img");
    assert_eq!(
        v["storage_target"]["notes"],
        serde_json::json!(["loop0: backed by /var/tmp/img.ext4"])
    );
    std::fs::remove_file(fx.tmp.path().join("proc/version")).unwrap();
    assert_eq!(
        json("/").pointer("/quickbench/kernel").unwrap(),
        "not recorded in the dump"
    );
}
