//! Live tests on this machine: loop-device filesystems (ext4, xfs, btrfs on
//! two loops, overlay over ext4) and tmpfs, each resolved to the right names.
//! They need root and the mkfs tools; otherwise they print why and pass.
//! Every mount and loop device is undone by a guard's `Drop`.

use std::path::Path;

use crate::common_live::*;

use quickbench::blockdev::{device_stack, resolve_dir, storage_table, TargetKind};
use quickbench::report::text::{stack_lines, table_lines};
use quickbench::Sysroot;

#[test]
fn live_root_resolves_and_table_matches_the_original() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let sys = Sysroot::live();
    let t = resolve_dir(&sys, Path::new("/")).unwrap();
    eprintln!("/ -> {} ({:?}, {:?})", t.display, t.kind, t.devices);
    assert!(!t.display.is_empty() && !t.display.contains('?'));
    let lines = table_lines(&storage_table(&sys));
    eprintln!("{}", lines.join("\n"));
    // This VM: the bash original printed exactly this table.
    let disks: Vec<String> = storage_table(&sys).into_iter().map(|r| r.name).collect();
    if t.source == "/dev/vda" && disks == ["vda"] {
        assert_eq!(t.display, "vda");
        assert_eq!(t.devices, vec!["vda"]);
        assert_eq!(t.lookup, quickbench::blockdev::MountLookup::Statx);
        assert_eq!(
            lines,
            vec![
                "Name      Bus     Size(GB)  QDepth  Model",
                "vda       virtio      256        ?  ?",
            ]
        );
    }
}

#[test]
fn live_ext4_on_loop() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = Guard::new();
    let (dev, mp) = ext4_on_loop(&mut g, "e");
    std::fs::create_dir(mp.join("sub")).unwrap();
    let sys = Sysroot::live();
    let t = resolve_dir(&sys, &mp.join("sub")).unwrap();
    assert_eq!(t.kind, TargetKind::Block);
    assert_eq!(t.fs_type, "ext4");
    assert_eq!(t.display, dev);
    assert_eq!(t.devices, vec![dev.clone()]);
    assert!(t.stacked);
    let img = g.path("e.img");
    assert_eq!(t.notes, vec![format!("{dev}: backed by {}", img.display())]);
    let name_w = dev.len().max(4);
    assert_eq!(
        device_stack(&sys, &t).map(|s| stack_lines(&s)).unwrap(),
        vec![
            format!("{:<name_w$} SIZE TYPE MOUNTPOINT", "NAME"),
            format!("{dev:<name_w$}  64M loop {}", mp.display()),
            format!("Notes     : {dev}: backed by {}", img.display()),
        ]
    );
}

#[test]
fn live_xfs_on_loop() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.xfs");
    let mut g = Guard::new();
    let dev = g.loop_dev("x.img", 300);
    run("mkfs.xfs", &["-q", "-f", &format!("/dev/{dev}")]);
    let mp = g.mount(&[&format!("/dev/{dev}")], "x");
    let t = resolve_dir(&Sysroot::live(), &mp).unwrap();
    assert_eq!(
        (t.fs_type.as_str(), t.display.as_str()),
        ("xfs", dev.as_str())
    );
}

#[test]
fn live_btrfs_across_two_loops() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.btrfs");
    let mut g = Guard::new();
    let a = g.loop_dev("b1.img", 256);
    let b = g.loop_dev("b2.img", 256);
    let (da, db) = (format!("/dev/{a}"), format!("/dev/{b}"));
    run(
        "mkfs.btrfs",
        &["-q", "-f", "-d", "single", "-m", "raid1", &da, &db],
    );
    let mp = g.mount(&["-o", &format!("device={db}"), &da], "b");
    let sys = Sysroot::live();
    let t = resolve_dir(&sys, &mp).unwrap();
    let mut expect = vec![a.clone(), b.clone()];
    expect.sort_by_key(|n| n.trim_start_matches("loop").parse::<u32>().unwrap());
    assert_eq!(t.fs_type, "btrfs");
    assert_eq!(t.kind, TargetKind::Block);
    assert_eq!(t.devices, expect);
    assert_eq!(t.display, expect.join("+"));
    assert!(t.stacked);
    // A subvolume has its own anonymous device number: same answer.
    run(
        "btrfs",
        &["-q", "subvolume", "create", mp.join("sv").to_str().unwrap()],
    );
    let t2 = resolve_dir(&sys, &mp.join("sv")).unwrap();
    assert_eq!(t2.display, t.display);
    let stack = device_stack(&sys, &t).unwrap();
    assert_eq!(stack_lines(&stack).len(), 4, "{stack:?}");
    assert_eq!(stack.roots.len(), 2, "{stack:?}");
}

#[test]
fn live_overlay_over_ext4() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!("mkfs.ext4");
    let mut g = Guard::new();
    let (dev, mp) = ext4_on_loop(&mut g, "o");
    for d in ["lower", "upper", "work"] {
        std::fs::create_dir(mp.join(d)).unwrap();
    }
    let opts = format!(
        "lowerdir={},upperdir={},workdir={}",
        mp.join("lower").display(),
        mp.join("upper").display(),
        mp.join("work").display()
    );
    let merged = g.mount(&["-t", "overlay", "overlay", "-o", &opts], "merged");
    let t = resolve_dir(&Sysroot::live(), &merged).unwrap();
    assert_eq!(t.kind, TargetKind::Overlay);
    assert_eq!(t.fs_type, "overlay");
    assert_eq!(t.display, dev);
    assert_eq!(t.devices, vec![dev]);
}

#[test]
fn live_tmpfs() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    need!();
    let mut g = Guard::new();
    let mp = g.mount(&["-t", "tmpfs", "-o", "size=1m", "qbtmp"], "t");
    let t = resolve_dir(&Sysroot::live(), &mp).unwrap();
    assert_eq!((t.kind, t.display.as_str()), (TargetKind::Memory, "tmpfs"));
    assert_eq!(t.source, "qbtmp");
    assert!(t.devices.is_empty());
}

#[test]
fn live_missing_dir_is_named_in_the_error() {
    let _turn = crate::one_module_at_a_time::enter(module_path!());
    let e = resolve_dir(&Sysroot::live(), Path::new("/nonexistent/qb-bench")).unwrap_err();
    let msg = format!("{e:#}");
    assert!(
        msg.starts_with("benchmark directory /nonexistent/qb-bench: cannot resolve it"),
        "{msg}"
    );
}
