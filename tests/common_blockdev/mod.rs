//! Builds fixture sysroots with the kernel's real sysfs symlink layout:
//! `/sys/devices/.../block/<disk>[/<part>]` directories, and the links
//! `/sys/block/<disk>`, `/sys/class/block/<name>`, `/sys/dev/block/M:m`,
//! `slaves/`, `holders/`, `device`, `device/subsystem`.
//!
//! [`Fx::util_linux_dump`] then turns a fixture into the layout of the
//! dumps util-linux's `tests/ts/lsblk/mk-input.sh` makes: no `/sys/class`
//! and no `/sys/bus`, no `subsystem` links (it skips them), `/dev/<node>`
//! as a regular file of udev properties, `/proc/version`.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use quickbench::Sysroot;

pub struct Fx {
    pub tmp: tempfile::TempDir,
    devpaths: RefCell<HashMap<String, String>>,
    devnos: RefCell<Vec<(String, u32, u32)>>,
}

/// `to` relative to the directory `from_dir` (both absolute system paths).
fn rel(from_dir: &str, to: &str) -> PathBuf {
    let f: Vec<Component> = Path::new(from_dir).components().collect();
    let t: Vec<Component> = Path::new(to).components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

impl Fx {
    pub fn new() -> Self {
        Fx {
            tmp: tempfile::tempdir().unwrap(),
            devpaths: RefCell::new(HashMap::new()),
            devnos: RefCell::new(Vec::new()),
        }
    }

    pub fn sys(&self) -> Sysroot {
        Sysroot::new(self.tmp.path())
    }

    fn real(&self, abs: &str) -> PathBuf {
        self.tmp.path().join(abs.trim_start_matches('/'))
    }

    pub fn file(&self, abs: &str, content: &str) {
        let p = self.real(abs);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }

    pub fn dir(&self, abs: &str) {
        fs::create_dir_all(self.real(abs)).unwrap();
    }

    /// A relative symlink at `abs` pointing at the system path `to`.
    pub fn link(&self, abs: &str, to: &str) {
        let p = self.real(abs);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        let parent = Path::new(abs)
            .parent()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        std::os::unix::fs::symlink(rel(&parent, to), p).unwrap();
    }

    pub fn devpath(&self, name: &str) -> String {
        self.devpaths.borrow()[name].clone()
    }

    fn register(&self, name: &str, devpath: &str, maj: u32, min: u32, sectors: u64) {
        self.dir(&format!("{devpath}/holders"));
        self.file(&format!("{devpath}/dev"), &format!("{maj}:{min}\n"));
        self.file(&format!("{devpath}/size"), &format!("{sectors}\n"));
        self.file(
            &format!("{devpath}/stat"),
            "1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 0 0\n",
        );
        self.link(&format!("/sys/class/block/{name}"), devpath);
        self.link(&format!("/sys/dev/block/{maj}:{min}"), devpath);
        self.devpaths
            .borrow_mut()
            .insert(name.to_string(), devpath.to_string());
        self.devnos.borrow_mut().push((name.to_string(), maj, min));
    }

    /// A whole disk under a hardware parent `parent` (e.g. a SCSI device
    /// dir), with `device` -> parent and `device/subsystem` -> `/sys/bus/<bus>`.
    pub fn disk(&self, parent: &str, bus: &str, name: &str, maj: u32, min: u32, sectors: u64) {
        let devpath = format!("{parent}/block/{name}");
        self.register(name, &devpath, maj, min, sectors);
        self.dir(&format!("{devpath}/slaves"));
        self.link(&format!("/sys/block/{name}"), &devpath);
        self.link(&format!("{devpath}/device"), parent);
        self.dir(&format!("/sys/bus/{bus}"));
        if !self.real(&format!("{parent}/subsystem")).exists() {
            self.link(&format!("{parent}/subsystem"), &format!("/sys/bus/{bus}"));
        }
    }

    /// A virtual whole device under `/sys/devices/virtual/block`.
    pub fn virt(&self, name: &str, maj: u32, min: u32, sectors: u64) {
        let devpath = format!("/sys/devices/virtual/block/{name}");
        self.register(name, &devpath, maj, min, sectors);
        self.dir(&format!("{devpath}/slaves"));
        self.link(&format!("/sys/block/{name}"), &devpath);
    }

    /// A partition of `disk`.
    pub fn part(&self, disk: &str, name: &str, maj: u32, min: u32, sectors: u64, no: u32) {
        let devpath = format!("{}/{name}", self.devpath(disk));
        self.register(name, &devpath, maj, min, sectors);
        self.file(&format!("{devpath}/partition"), &format!("{no}\n"));
        self.file(&format!("{devpath}/start"), "2048\n");
    }

    /// `holder` is built on `slave`.
    pub fn stack(&self, holder: &str, slave: &str) {
        let (h, s) = (self.devpath(holder), self.devpath(slave));
        self.link(&format!("{h}/slaves/{slave}"), &s);
        self.link(&format!("{s}/holders/{holder}"), &h);
    }

    /// A loop device backed by the file `backing`.
    pub fn loop_dev(&self, name: &str, min: u32, sectors: u64, backing: &str) {
        self.virt(name, 7, min, sectors);
        let d = self.devpath(name);
        self.file(&format!("{d}/loop/backing_file"), &format!("{backing}\n"));
        self.file(&format!("{d}/loop/offset"), "0\n");
    }

    /// A device-mapper device `dm-<min>` called `dm_name`, of the given
    /// dm uuid, on `slaves`.
    pub fn dm(&self, min: u32, dm_name: &str, uuid: &str, sectors: u64, slaves: &[&str]) {
        let name = format!("dm-{min}");
        self.virt(&name, 253, min, sectors);
        let d = self.devpath(&name);
        self.file(&format!("{d}/dm/name"), &format!("{dm_name}\n"));
        self.file(&format!("{d}/dm/uuid"), &format!("{uuid}\n"));
        for s in slaves {
            self.stack(&name, s);
        }
    }

    /// Rewrites this fixture as util-linux's mk-input.sh would have dumped
    /// it (see the module doc), `proc_version` being `/proc/version`.
    pub fn util_linux_dump(&self, proc_version: &str) {
        let root = self.tmp.path();
        fs::remove_dir_all(root.join("sys/class")).unwrap();
        let _ = fs::remove_dir_all(root.join("sys/bus"));
        remove_links_named(&root.join("sys/devices"), "subsystem");
        for (name, maj, min) in self.devnos.borrow().iter() {
            let devpath = self.devpath(name);
            let part = self.real(&format!("{devpath}/partition")).exists();
            let node = match fs::read_to_string(self.real(&format!("{devpath}/dm/name"))) {
                Ok(dm) => format!("/dev/mapper/{}", dm.trim()),
                Err(_) => format!("/dev/{}", name.replace('!', "/")),
            };
            let kind = if part { "partition" } else { "disk" };
            let sysdev = devpath.trim_start_matches("/sys");
            self.file(
                &node,
                &format!(
                    "DEVPATH={sysdev}\nDEVNAME={node}\nDEVTYPE={kind}\nMAJOR={maj}\nMINOR={min}\nSUBSYSTEM=block\nOWNER=root\nGROUP=disk\nMODE=brw-rw----\n"
                ),
            );
        }
        self.file("/proc/version", &format!("{proc_version}\n"));
        if !self.real("/proc/swaps").exists() {
            self.file(
                "/proc/swaps",
                "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
            );
        }
    }

    pub fn mountinfo(&self, lines: &[&str]) {
        let mut text = lines.join("\n");
        text.push('\n');
        self.file("/proc/self/mountinfo", &text);
    }

    /// A SATA disk `sdX` on its own SCSI host, `device/model` set.
    pub fn sata(&self, name: &str, host: u32, maj: u32, min: u32, sectors: u64, model: &str) {
        let parent = format!(
            "/sys/devices/pci0000:00/0000:00:1f.2/ata{n}/host{host}/target{host}:0:0/{host}:0:0:0",
            n = host + 1
        );
        self.file(&format!("{parent}/model"), &format!("{model:<16}\n"));
        self.file(&format!("{parent}/queue_depth"), "32\n");
        self.file(&format!("{parent}/type"), "0\n");
        self.disk(&parent, "scsi", name, maj, min, sectors);
    }
}

/// Removes every symlink called `name` under `dir` (not following links).
fn remove_links_named(dir: &Path, name: &str) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            if e.file_name() == name {
                fs::remove_file(e.path()).unwrap();
            }
        } else if ft.is_dir() {
            remove_links_named(&e.path(), name);
        }
    }
}

/// Sectors of a 4 TB disk (3.6T).
pub const TB4: u64 = 7_814_037_168;

/// Two SATA disks with one partition each.
pub fn two_sata(fx: &Fx) {
    fx.sata("sda", 0, 8, 0, TB4, "WDC WD40EFRX-68N");
    fx.sata("sdb", 1, 8, 16, TB4, "WDC WD40EFRX-68N");
    fx.part("sda", "sda1", 8, 1, TB4 - 4096, 1);
    fx.part("sdb", "sdb1", 8, 17, TB4 - 4096, 1);
}

/// md0 = RAID1 of sda1+sdb1; dm-0 = LUKS on md0; dm-1 = LVM LV on dm-0.
pub fn lvm_luks_md(fx: &Fx) {
    two_sata(fx);
    fx.virt("md0", 9, 0, TB4 - 8192);
    fx.file(&format!("{}/md/level", fx.devpath("md0")), "raid1\n");
    fx.stack("md0", "sda1");
    fx.stack("md0", "sdb1");
    fx.virt("dm-0", 253, 0, TB4 - 12288);
    fx.file(&format!("{}/dm/name", fx.devpath("dm-0")), "cryptmd\n");
    fx.file(
        &format!("{}/dm/uuid", fx.devpath("dm-0")),
        "CRYPT-LUKS2-0a1b2c3d4e5f40718293a4b5c6d7e8f9-cryptmd\n",
    );
    fx.stack("dm-0", "md0");
    fx.virt("dm-1", 253, 1, 419_430_400);
    fx.file(&format!("{}/dm/name", fx.devpath("dm-1")), "vg0-root\n");
    fx.file(
        &format!("{}/dm/uuid", fx.devpath("dm-1")),
        "LVM-Xb1Xb1Xb1Xb1Xb1Xb1Xb1Xb1Xb1Xb1Xb1Xc2Yc2Yc2Yc2Yc2Yc2Yc2Yc2Yc2Yc2Yc2Y\n",
    );
    fx.stack("dm-1", "dm-0");
    fx.mountinfo(&["20 1 253:1 / / rw,relatime - xfs /dev/mapper/vg0-root rw"]);
}
