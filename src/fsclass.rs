//! One classification of filesystem types, used by device resolution, the
//! storage engine's policy and the plan: what kind of storage a mount's
//! type means, and whether it can be benchmarked at all.

/// What a filesystem type says about the storage behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsClass {
    /// Data on local block devices (ext4, xfs, btrfs...), or a type this
    /// list does not know (resolution then looks for a device).
    Disk,
    /// Data behind a server or a daemon: network filesystems and FUSE.
    Network,
    /// Data in RAM: the figures measure memory, not a disk.
    Memory,
    /// A kernel interface, not storage: nothing to benchmark.
    Pseudo,
}

/// Kernel pseudo-filesystems: interfaces, not data. hugetlbfs is here and
/// not under memory: it accepts no `write(2)`, so no line could run there.
const PSEUDO: &[&str] = &[
    "proc",
    "sysfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "mqueue",
    "hugetlbfs",
    "autofs",
    "binfmt_misc",
    "efivarfs",
    "nsfs",
    "rpc_pipefs",
    "selinuxfs",
];

/// RAM-backed filesystems that hold files.
const MEMORY: &[&str] = &["tmpfs", "ramfs", "devtmpfs"];

/// Filesystems whose data is behind a server or daemon.
const NETWORK: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ceph",
    "glusterfs",
    "9p",
    "virtiofs",
    "afs",
    "lustre",
    "gpfs",
    "beegfs",
    "ocfs2",
    "gfs2",
    "fuse",
    "fuseblk",
    "sshfs",
    "davfs",
];

/// The class of a mountinfo filesystem type (`ext4`, `fuse.sshfs`).
pub fn classify(fs_type: &str) -> FsClass {
    if PSEUDO.contains(&fs_type) {
        FsClass::Pseudo
    } else if MEMORY.contains(&fs_type) {
        FsClass::Memory
    } else if NETWORK.contains(&fs_type)
        || fs_type.starts_with("fuse.")
        || fs_type.starts_with("nfs")
    {
        FsClass::Network
    } else {
        FsClass::Disk
    }
}

/// True for a kernel pseudo-filesystem, which holds nothing to benchmark.
pub fn is_pseudo(fs_type: &str) -> bool {
    classify(fs_type) == FsClass::Pseudo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_one_class() {
        assert_eq!(classify("ext4"), FsClass::Disk);
        assert_eq!(classify("zfs"), FsClass::Disk);
        assert_eq!(classify("tmpfs"), FsClass::Memory);
        assert_eq!(classify("hugetlbfs"), FsClass::Pseudo);
        assert_eq!(classify("proc"), FsClass::Pseudo);
        assert_eq!(classify("nfs4"), FsClass::Network);
        assert_eq!(classify("fuse.bindfs"), FsClass::Network);
        assert_eq!(classify("fuseblk"), FsClass::Network);
        for lists in [PSEUDO, MEMORY, NETWORK] {
            for t in lists {
                let n = [PSEUDO, MEMORY, NETWORK]
                    .iter()
                    .filter(|l| l.contains(t))
                    .count();
                assert_eq!(n, 1, "{t} is in {n} lists");
            }
        }
    }
}
