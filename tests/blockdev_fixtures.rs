//! Fixture sysroots for the directory -> block device resolution, the
//! storage table and the device stack: one test per storage layout.

mod common_blockdev;

use std::path::Path;

use common_blockdev::{lvm_luks_md, two_sata, Fx, TB4};
use quickbench::blockdev::{device_stack, device_type, resolve_dir, storage_table, TargetKind};
use quickbench::report::text::{stack_lines, table_lines};

/// The stack's tree lines (the notes line under it is checked through
/// `Target::notes`).
fn tree_lines(sys: &quickbench::Sysroot, t: &quickbench::blockdev::Target) -> Option<Vec<String>> {
    device_stack(sys, t).map(|mut s| {
        s.notes.clear();
        stack_lines(&s)
    })
}

/// Keeps the fixture on disk (for running the real lsblk on it by hand)
/// when BLOCKDEV_KEEP is set.
fn keep(fx: &Fx, what: &str) {
    if std::env::var_os("BLOCKDEV_KEEP").is_some() {
        let to = std::env::temp_dir().join(format!("blockdev-fixture-{what}"));
        let _ = std::fs::remove_dir_all(&to);
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(fx.tmp.path())
            .arg(&to)
            .status()
            .unwrap();
        assert!(status.success());
        eprintln!("fixture {what} kept in {}", to.display());
    }
}

#[test]
fn sata_partition_resolves_to_its_disk() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&[
        "20 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
        "21 20 8:17 / /data rw,relatime shared:2 - xfs /dev/sdb1 rw",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/home/user")).unwrap();
    assert_eq!(t.kind, TargetKind::Block);
    assert_eq!(t.members, vec!["sda1"]);
    assert_eq!(t.devices, vec!["sda"]);
    assert_eq!(t.display, "sda");
    assert!(!t.stacked);
    assert_eq!(t.notes, vec!["sda1: partition of sda"]);
    assert_eq!(tree_lines(&fx.sys(), &t), None);
    let t = resolve_dir(&fx.sys(), Path::new("/data/x/../y")).unwrap();
    assert_eq!(t.display, "sdb");
    assert_eq!(t.fs_type, "xfs");
    assert_eq!(
        table_lines(&storage_table(&fx.sys())),
        vec![
            "Name      Bus     Size(GB)  QDepth  Model",
            "sda       scsi       3726       32  WDC WD40EFRX-68N",
            "sdb       scsi       3726       32  WDC WD40EFRX-68N",
        ]
    );
}

#[test]
fn nvme_partition_resolves_to_the_namespace() {
    let fx = Fx::new();
    let ctrl = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0";
    fx.file(
        &format!("{ctrl}/model"),
        "Samsung SSD 980 PRO 1TB                 \n",
    );
    fx.disk(ctrl, "nvme", "nvme0n1", 259, 0, 1_953_525_168);
    fx.part("nvme0n1", "nvme0n1p1", 259, 1, 1_048_576, 1);
    fx.part("nvme0n1", "nvme0n1p2", 259, 2, 1_952_474_112, 2);
    fx.mountinfo(&[
        "22 1 259:2 / / rw - ext4 /dev/nvme0n1p2 rw",
        "23 22 259:1 / /boot/efi rw - vfat /dev/nvme0n1p1 rw",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/")).unwrap();
    assert_eq!(t.devices, vec!["nvme0n1"]);
    assert_eq!(t.display, "nvme0n1");
    let t = resolve_dir(&fx.sys(), Path::new("/boot/efi/EFI")).unwrap();
    assert_eq!(t.members, vec!["nvme0n1p1"]);
    assert_eq!(t.display, "nvme0n1");
    assert_eq!(
        table_lines(&storage_table(&fx.sys())),
        vec![
            "Name      Bus     Size(GB)  QDepth  Model",
            "nvme0n1   nvme        931        ?  Samsung SSD 980 PRO 1TB",
        ]
    );
}

#[test]
fn emmc_partition_and_dev_root() {
    let fx = Fx::new();
    let host = "/sys/devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:0001";
    fx.file(&format!("{host}/name"), "BJTD4R\n");
    fx.file(&format!("{host}/type"), "MMC\n");
    fx.disk(host, "mmc", "mmcblk0", 179, 0, 61_071_360);
    fx.part("mmcblk0", "mmcblk0p1", 179, 1, 524_288, 1);
    fx.part("mmcblk0", "mmcblk0p2", 179, 2, 60_545_024, 2);
    // The kernel names the root source /dev/root; only MAJ:MIN is reliable.
    fx.mountinfo(&[
        "20 1 179:2 / / rw,noatime - ext4 /dev/root rw",
        "21 20 179:1 / /boot/firmware rw - vfat /dev/mmcblk0p1 rw",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/srv")).unwrap();
    assert_eq!(t.source, "/dev/root");
    assert_eq!(t.members, vec!["mmcblk0p2"]);
    assert_eq!(t.display, "mmcblk0");
    assert_eq!(
        table_lines(&storage_table(&fx.sys())),
        vec![
            "Name      Bus     Size(GB)  QDepth  Model",
            "mmcblk0   mmc          29        ?  ?",
        ]
    );
}

#[test]
fn bind_and_over_mounts_pick_the_visible_mount() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "21 20 8:17 /data/www /var/www rw - ext4 /dev/sdb1 rw",
        "22 20 8:1 / /mnt rw - ext4 /dev/sda1 rw",
        "23 22 8:17 / /mnt rw - ext4 /dev/sdb1 rw",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/var/www/html")).unwrap();
    assert_eq!((t.root.as_str(), t.display.as_str()), ("/data/www", "sdb"));
    let t = resolve_dir(&fx.sys(), Path::new("/mnt")).unwrap();
    assert_eq!((t.mount_id, t.display.as_str()), (23, "sdb"));
    let t = resolve_dir(&fx.sys(), Path::new("/var/wwwx")).unwrap();
    assert_eq!(t.display, "sda");
}

#[test]
fn lvm_on_luks_on_md_raid1_draws_the_stack() {
    let fx = Fx::new();
    lvm_luks_md(&fx);
    keep(&fx, "lvm-luks-md");
    let t = resolve_dir(&fx.sys(), Path::new("/var/lib")).unwrap();
    assert_eq!(t.kind, TargetKind::Block);
    assert_eq!(t.members, vec!["dm-1"]);
    assert_eq!(t.devices, vec!["dm-1"]);
    assert_eq!(t.display, "dm-1");
    assert!(t.stacked);
    assert_eq!(
        t.notes,
        vec![
            "dm-1: LVM volume /dev/mapper/vg0-root",
            "dm-0: encrypted volume /dev/mapper/cryptmd",
            "md0: raid1 array",
            "sda1: partition of sda",
            "sdb1: partition of sdb",
        ]
    );
    let lines = tree_lines(&fx.sys(), &t).unwrap();
    assert_eq!(
        lines,
        vec![
            "NAME         SIZE TYPE  MOUNTPOINT",
            "vg0-root     200G lvm   /",
            "└─cryptmd    3.6T crypt ",
            "  └─md0      3.6T raid1 ",
            "    ├─sda1   3.6T part  ",
            "    │ └─sda  3.6T disk  ",
            "    └─sdb1   3.6T part  ",
            "      └─sdb  3.6T disk  ",
        ]
    );
    // dm/md/loop have no `device` link: only the disks are in the table.
    assert_eq!(storage_table(&fx.sys()).len(), 2);
}

#[test]
fn multipath_names_the_map_and_both_paths() {
    let fx = Fx::new();
    fx.sata("sdc", 2, 8, 32, 2_147_483_648, "MSA 2050 SAN");
    fx.sata("sdd", 3, 8, 48, 2_147_483_648, "MSA 2050 SAN");
    fx.virt("dm-2", 253, 2, 2_147_483_648);
    fx.file(&format!("{}/dm/name", fx.devpath("dm-2")), "mpatha\n");
    fx.file(
        &format!("{}/dm/uuid", fx.devpath("dm-2")),
        "mpath-3600c0ff000d8b1c4\n",
    );
    fx.stack("dm-2", "sdd");
    fx.stack("dm-2", "sdc");
    fx.mountinfo(&[
        "20 1 8:0 / / rw - ext4 /dev/sda rw",
        "30 20 253:2 / /san rw - ext4 /dev/mapper/mpatha rw",
    ]);
    keep(&fx, "multipath");
    let t = resolve_dir(&fx.sys(), Path::new("/san")).unwrap();
    assert_eq!(t.display, "dm-2");
    assert!(t.stacked);
    assert_eq!(
        tree_lines(&fx.sys(), &t).unwrap(),
        vec![
            "NAME   SIZE TYPE  MOUNTPOINT",
            "mpatha   1T mpath /san",
            "├─sdc    1T disk  ",
            "└─sdd    1T disk  ",
        ]
    );
}

#[test]
fn btrfs_on_two_disks_with_a_subvolume() {
    let fx = Fx::new();
    two_sata(&fx);
    let fsid = "/sys/fs/btrfs/5f3c1b7e-2a64-4f0b-9c1e-7d2a7e8b9c10";
    fx.link(&format!("{fsid}/devices/sda1"), &fx.devpath("sda1"));
    fx.link(&format!("{fsid}/devices/sdb1"), &fx.devpath("sdb1"));
    fx.dir("/sys/fs/btrfs/features");
    fx.mountinfo(&[
        "20 1 0:31 /@ / rw,relatime shared:1 - btrfs /dev/sda1 rw,space_cache=v2,subvolid=256,subvol=/@",
        "21 20 0:33 /@home /home rw,relatime shared:2 - btrfs /dev/sda1 rw,space_cache=v2,subvolid=257,subvol=/@home",
    ]);
    keep(&fx, "btrfs");
    let t = resolve_dir(&fx.sys(), Path::new("/home/me")).unwrap();
    assert_eq!(t.root, "/@home");
    assert_eq!(t.kind, TargetKind::Block);
    assert_eq!(t.members, vec!["sda1", "sdb1"]);
    assert_eq!(t.devices, vec!["sda", "sdb"]);
    assert_eq!(t.display, "sda+sdb");
    assert!(t.stacked);
    assert_eq!(
        t.notes,
        vec![
            "btrfs: members sda1, sdb1",
            "sda1: partition of sda",
            "sdb1: partition of sdb",
        ]
    );
    assert_eq!(
        tree_lines(&fx.sys(), &t).unwrap(),
        vec![
            "NAME   SIZE TYPE MOUNTPOINT",
            "sda1   3.6T part /home",
            "└─sda  3.6T disk ",
            "sdb1   3.6T part ",
            "└─sdb  3.6T disk ",
        ]
    );
}

#[test]
fn zfs_pool_members_come_from_udev() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.sata("sde", 4, 8, 64, 1_000_000, "OTHER");
    fx.file(
        "/run/udev/data/b8:1",
        "S:disk/by-id/ata-A-part1\nE:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=tank\nE:ID_FS_USAGE=filesystem\n",
    );
    fx.file(
        "/run/udev/data/b8:17",
        "E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=tank\n",
    );
    fx.file(
        "/run/udev/data/b8:64",
        "E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=other\n",
    );
    fx.file("/run/udev/data/c4:1", "E:ID_FS_LABEL=tank\n");
    fx.mountinfo(&[
        "20 1 0:45 / / rw - zfs rpool/ROOT/debian rw,xattr,noacl",
        "21 20 0:46 / /tank/data rw - zfs tank/data rw,xattr,noacl",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/tank/data/x")).unwrap();
    assert_eq!(t.kind, TargetKind::Zfs);
    assert_eq!(t.display, "tank");
    assert_eq!(t.members, vec!["sda1", "sdb1"]);
    assert_eq!(t.devices, vec!["sda", "sdb"]);
    assert!(t.stacked);
    assert_eq!(
        t.notes,
        vec![
            "tank: ZFS pool on sda1, sdb1",
            "sda1: partition of sda",
            "sdb1: partition of sdb",
        ]
    );
    assert_eq!(
        tree_lines(&fx.sys(), &t).unwrap(),
        vec![
            "NAME   SIZE TYPE MOUNTPOINT",
            "sda1   3.6T part ",
            "└─sda  3.6T disk ",
            "sdb1   3.6T part ",
            "└─sdb  3.6T disk ",
        ]
    );
    // rpool has no udev data: no devices, but a name and no stack.
    let t = resolve_dir(&fx.sys(), Path::new("/etc")).unwrap();
    assert_eq!(t.display, "rpool");
    assert!(t.devices.is_empty());
    assert_eq!(tree_lines(&fx.sys(), &t), None);
}

#[test]
fn overlay_follows_upperdir_and_hides_in_containers() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "21 20 8:17 / /var/lib/docker rw - ext4 /dev/sdb1 rw",
        "90 21 0:60 / /var/lib/docker/overlay2/abc/merged rw - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X:/var/lib/docker/overlay2/l/Y,upperdir=/var/lib/docker/overlay2/abc/diff,workdir=/var/lib/docker/overlay2/abc/work",
    ]);
    let t = resolve_dir(
        &fx.sys(),
        Path::new("/var/lib/docker/overlay2/abc/merged/app"),
    )
    .unwrap();
    assert_eq!(t.kind, TargetKind::Overlay);
    assert_eq!(t.display, "sdb");
    assert_eq!(t.devices, vec!["sdb"]);
    assert_eq!(
        t.notes,
        vec![
            "overlay: upper directory /var/lib/docker/overlay2/abc/diff on sdb",
            "sdb1: partition of sdb",
        ]
    );
}

#[test]
fn container_without_dev_nodes() {
    // Inside a container: / is an overlay whose upperdir is a host path,
    // /data is a bind of a host partition whose /dev node does not exist.
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&[
        "500 400 0:88 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A,upperdir=/var/lib/docker/overlay2/f00/diff,workdir=/var/lib/docker/overlay2/f00/work",
        "501 500 0:90 / /proc rw - proc proc rw",
        "510 500 8:17 /srv/data /data rw,relatime - ext4 /dev/sdb1 rw",
        "511 500 0:91 / /dev/shm rw - tmpfs shm rw,size=65536k",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/data")).unwrap();
    assert_eq!((t.display.as_str(), t.root.as_str()), ("sdb", "/srv/data"));
    let t = resolve_dir(&fx.sys(), Path::new("/app")).unwrap();
    assert_eq!(t.kind, TargetKind::Overlay);
    assert_eq!(t.display, "overlay");
    assert!(t.devices.is_empty());
    let t = resolve_dir(&fx.sys(), Path::new("/dev/shm")).unwrap();
    assert_eq!((t.kind, t.display.as_str()), (TargetKind::Memory, "tmpfs"));
    // Without /sys/dev/block, the source's basename still names the device.
    std::fs::remove_dir_all(fx.tmp.path().join("sys/dev")).unwrap();
    let t = resolve_dir(&fx.sys(), Path::new("/data")).unwrap();
    assert_eq!(t.display, "sdb");
}

#[test]
fn network_and_memory_filesystems_have_no_device() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "30 20 0:52 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2,addr=10.0.0.2",
        "31 20 0:53 / /mnt/smb rw - cifs //nas/share rw,vers=3.1.1",
        "32 20 0:27 / /run rw - tmpfs tmpfs rw,size=1024k",
        "33 20 0:54 / /mnt/ssh rw - fuse.sshfs me@host:/home rw",
        "34 20 0:55 / /mnt/shared rw - virtiofs myfs rw",
        "35 20 0:56 / /mnt/odd rw - weirdfs  rw",
    ]);
    let sys = fx.sys();
    for (dir, kind, display) in [
        ("/mnt/nfs/a", TargetKind::Network, "nfs4 server:/export"),
        ("/mnt/smb", TargetKind::Network, "cifs //nas/share"),
        ("/run/user", TargetKind::Memory, "tmpfs"),
        ("/mnt/ssh", TargetKind::Network, "fuse.sshfs me@host:/home"),
        ("/mnt/shared", TargetKind::Network, "virtiofs myfs"),
        ("/mnt/odd", TargetKind::Unknown, "weirdfs"),
    ] {
        let t = resolve_dir(&sys, Path::new(dir)).unwrap();
        assert_eq!((t.kind, t.display.as_str()), (kind, display), "{dir}");
        assert!(t.devices.is_empty(), "{dir}");
        assert!(!t.stacked, "{dir}");
        assert_eq!(tree_lines(&sys, &t), None);
    }
}

#[test]
fn missing_mount_table_names_the_dir() {
    let fx = Fx::new();
    let e = resolve_dir(&fx.sys(), Path::new("/srv/bench")).unwrap_err();
    let msg = format!("{e:#}");
    assert!(msg.contains("/srv/bench"), "{msg}");
    assert!(msg.contains("proc/self/mountinfo"), "{msg}");
    assert!(storage_table(&fx.sys()).is_empty());
}

#[test]
fn type_rules_follow_lsblk() {
    let fx = Fx::new();
    two_sata(&fx);
    let cd = "/sys/devices/pci0000:00/0000:00:1f.2/ata9/host8/target8:0:0/8:0:0:0";
    fx.file(&format!("{cd}/type"), "5\n");
    fx.disk(cd, "scsi", "sr0", 11, 0, 2_097_151);
    let mmc = "/sys/devices/platform/mmc0/mmc_host/mmc0/mmc0:0001";
    fx.file(&format!("{mmc}/type"), "SD\n");
    fx.disk(mmc, "mmc", "mmcblk0", 179, 0, 1000);
    let ctrl = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0";
    fx.disk(ctrl, "nvme", "nvme0n1", 259, 0, 1000);
    let dm = |name: &str, min: u32, uuid: Option<&str>| {
        fx.virt(name, 253, min, 1000);
        if let Some(u) = uuid {
            fx.file(&format!("{}/dm/uuid", fx.devpath(name)), &format!("{u}\n"));
        }
    };
    dm("dm-0", 0, Some("LVM-abc-def"));
    dm("dm-1", 1, Some("CRYPT-LUKS2-0a1b-cr"));
    dm("dm-2", 2, Some("CRYPT-PLAIN-x"));
    dm("dm-3", 3, Some("mpath-3600c0ff"));
    dm("dm-4", 4, Some("part1-mpath-3600c0ff"));
    dm("dm-5", 5, Some("PARTX-y"));
    dm("dm-6", 6, None);
    dm("dm-7", 7, Some("DMRAID-isw_x"));
    dm("dm-8", 8, Some("stratis-1-private"));
    fx.virt("md0", 9, 0, 1000);
    fx.file(&format!("{}/md/level", fx.devpath("md0")), "raid10\n");
    fx.virt("md1", 9, 1, 1000);
    fx.file(&format!("{}/md/level", fx.devpath("md1")), "\n");
    fx.virt("loop0", 7, 0, 1000);
    fx.virt("zram0", 252, 0, 1000);
    let sys = fx.sys();
    for (name, ty) in [
        ("sda", "disk"),
        ("sda1", "part"),
        ("sr0", "rom"),
        ("mmcblk0", "disk"),
        ("nvme0n1", "disk"),
        ("dm-0", "lvm"),
        ("dm-1", "crypt"),
        ("dm-2", "crypt"),
        ("dm-3", "mpath"),
        ("dm-4", "part"),
        ("dm-5", "part"),
        ("dm-6", "dm"),
        ("dm-7", "dmraid"),
        ("dm-8", "stratis"),
        ("md0", "raid10"),
        ("md1", "md"),
        ("loop0", "loop"),
        ("zram0", "disk"),
    ] {
        assert_eq!(device_type(&sys, name), ty, "{name}");
    }
    // Virtual devices have no `device` link: not in the table.
    let names: Vec<String> = storage_table(&sys).into_iter().map(|r| r.name).collect();
    assert_eq!(names, vec!["mmcblk0", "nvme0n1", "sda", "sdb", "sr0"]);
}

#[test]
fn block_stats_of_several_members_are_summed() {
    let fx = Fx::new();
    two_sata(&fx);
    let sys = fx.sys();
    let names = vec!["sda".to_string(), "sdb".to_string()];
    let s = quickbench::blockdev::read_block_stats(&sys, &names).unwrap();
    // Each fixture stat file is "1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 0 0".
    assert_eq!((s.read_ios, s.write_sectors, s.flush_ios), (2, 32, Some(0)));
    assert_eq!(
        quickbench::blockdev::block_stat_path(&sys, "sda1"),
        fx.tmp.path().join("sys/class/block/sda1/stat")
    );
    assert_eq!(quickbench::blockdev::read_block_stats(&sys, &[]), None);
    assert_eq!(
        quickbench::blockdev::read_block_stats(&sys, &["sdz".into()]),
        None
    );
}

#[test]
fn md_raid1_names_the_array_and_its_level() {
    let fx = Fx::new();
    two_sata(&fx);
    fx.virt("md127", 9, 127, TB4 - 8192);
    fx.file(&format!("{}/md/level", fx.devpath("md127")), "raid1\n");
    fx.stack("md127", "sdb1");
    fx.stack("md127", "sda1");
    fx.file(
        "/proc/swaps",
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sdb1 partition 1 0 -2\n",
    );
    fx.mountinfo(&[
        "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
        "21 20 9:127 / /srv/raid\\040one rw - ext4 /dev/md127 rw",
    ]);
    let t = resolve_dir(&fx.sys(), Path::new("/srv/raid one/x")).unwrap();
    assert_eq!(t.display, "md127");
    assert_eq!(
        t.notes,
        vec![
            "md127: raid1 array",
            "sda1: partition of sda",
            "sdb1: partition of sdb",
        ]
    );
    assert!(t.stacked);
    assert_eq!(
        tree_lines(&fx.sys(), &t).unwrap(),
        vec![
            "NAME     SIZE TYPE  MOUNTPOINT",
            "md127    3.6T raid1 /srv/raid one",
            "├─sda1   3.6T part  /",
            "│ └─sda  3.6T disk  ",
            "└─sdb1   3.6T part  [SWAP]",
            "  └─sdb  3.6T disk  ",
        ]
    );
}

#[test]
fn a_raw_device_in_use_is_refused_with_what_uses_it() {
    use quickbench::blockdev::raw::in_use;
    let fx = Fx::new();
    lvm_luks_md(&fx);
    fx.mountinfo(&[
        "20 1 253:1 / / rw,relatime - xfs /dev/mapper/vg0-root rw",
        "21 20 8:33 / /data rw,relatime - ext4 /dev/sdc1 rw",
    ]);
    fx.sata("sdc", 2, 8, 32, TB4, "WDC WD40EFRX-68N");
    fx.part("sdc", "sdc1", 8, 33, TB4 - 4096, 1);
    fx.sata("sdd", 3, 8, 48, TB4, "WDC WD40EFRX-68N");
    fx.part("sdd", "sdd2", 8, 50, TB4 - 4096, 2);
    fx.sata("sde", 4, 8, 64, TB4, "WDC WD40EFRX-68N");
    fx.file(
        "/proc/swaps",
        "Filename\tType\tSize\tUsed\tPriority\n/dev/sdd2 partition\t8388604\t0\t-2\n",
    );
    let sys = fx.sys();
    let why = |name: &str| in_use(&sys, name, &Path::new("/dev").join(name));
    let cases = [
        ("sda", "sda1 holds the raid1 array md0"),
        ("md0", "md0 holds the dm-crypt volume dm-0 (cryptmd)"),
        ("dm-0", "dm-0 holds the LVM volume dm-1 (vg0-root)"),
        ("dm-1", "dm-1 is mounted on /: unmount it"),
        ("sdc", "sdc1 is mounted on /data: unmount it (umount /data)"),
        (
            "sdd",
            "sdd2 is active swap: turn it off (swapoff /dev/sdd2)",
        ),
    ];
    for (name, want) in cases {
        let got = why(name).unwrap_or_default();
        assert!(got.contains(want), "{name}: {got}");
        assert!(
            got.starts_with(&format!("--destroy /dev/{name}: ")),
            "{got}"
        );
    }
    assert_eq!(why("sde"), None, "a disk nothing uses");
    // through the command line: exit 2, before anything is measured
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_quickbench"))
        .arg("--sysroot")
        .arg(fx.tmp.path())
        .args(["--device", "/dev/sda", "--destroy", "/dev/sda"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("sda1 holds the raid1 array md0"), "{err}");
}
