//! Reports to compare, made by stand-in runs (`--fake-figures`) of small
//! fixture hosts: nothing is measured, so they are quick and exact.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn quickbench() -> Command {
    Command::cargo_bin("quickbench").unwrap()
}

/// A small host for stand-in runs: 2 CPUs, one virtio disk holding /.
pub fn write_host(root: &Path, hostname: &str) {
    let w = |p: &str, c: &str| {
        let p = root.join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, c).unwrap();
    };
    let mut cpuinfo = String::new();
    for cpu in 0..2 {
        cpuinfo.push_str(&format!(
            "processor\t: {cpu}\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\
             model name\t: AMD EPYC\nphysical id\t: 0\nsiblings\t: 2\ncore id\t\t: {cpu}\ncpu cores\t: 2\n\n"
        ));
    }
    w("proc/cpuinfo", &cpuinfo);
    w(
        "proc/meminfo",
        "MemTotal:       24683584 kB\nMemAvailable:   20000000 kB\n",
    );
    w("proc/sys/kernel/ostype", "Linux\n");
    w("proc/sys/kernel/hostname", &format!("{hostname}\n"));
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

/// A stand-in run of `host`: its text report and JSON document.
pub fn stand_in(dir: &Path, host: &str) -> (PathBuf, PathBuf) {
    let root = dir.join(format!("root-{host}"));
    write_host(&root, host);
    let txt = dir.join(format!("{host}.txt"));
    let json = dir.join(format!("{host}.json"));
    let out = quickbench()
        .arg("--sysroot")
        .arg(&root)
        .args([
            "--fake-figures",
            "--trials",
            "1",
            "--dir",
            "/",
            "12",
            "--json",
            "--text-out",
        ])
        .arg(&txt)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    fs::write(&json, out.stdout).unwrap();
    (txt, json)
}
