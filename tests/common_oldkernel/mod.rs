//! Runs a program as if on an old kernel: a seccomp filter, installed in
//! the child between fork and exec, answers every system call that the
//! old kernel did not have with ENOSYS, as that kernel would, and refuses
//! `O_TMPFILE` as an old kernel or a filesystem without it does.
//!
//! System call numbers are allocated in order, so "added after kernel X"
//! is "number >= the first one added after X" on each architecture (the
//! numbers from 424 up are shared by all architectures and all date from
//! 5.1 or later). Plain classic BPF through libc and prctl: no crate.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

/// The kernel a [`Command`] should appear to run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OldKernel {
    /// Debian 9 (4.9): no statx (4.11), io_pgetevents, rseq (4.18), nor
    /// anything from 5.1 on (io_uring, pidfd_*, clone3, openat2,
    /// close_range...). `O_TMPFILE` exists but this filesystem refuses it:
    /// EOPNOTSUPP.
    Linux4_9,
    /// RHEL/CentOS 7 (3.10): additionally no getrandom, memfd_create,
    /// renameat2, copy_file_range, preadv2, execveat, bpf, membarrier...
    /// The kernel does not know `O_TMPFILE` (3.11): it ignores the unknown
    /// bit and opens the directory with `O_RDWR | O_DIRECTORY`: EISDIR.
    Linux3_10,
}

#[cfg(target_arch = "x86_64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
    /// sched_setattr (3.14) is the first after 3.10's finit_module (313).
    pub const FIRST_AFTER_3_10: u32 = 314;
    /// statx (4.11) is the first after 4.9's pkey_free (331).
    pub const FIRST_AFTER_4_9: u32 = 332;
    pub const OPEN: u32 = libc::SYS_open as u32;
}

#[cfg(target_arch = "aarch64")]
mod arch {
    pub const AUDIT_ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
    /// sched_setattr (3.14) is the first after 3.10's finit_module (273).
    pub const FIRST_AFTER_3_10: u32 = 274;
    /// statx (4.11) is the first after 4.9's pkey_free (290).
    pub const FIRST_AFTER_4_9: u32 = 291;
    /// aarch64 has no open(2), only openat: a number no call has.
    pub const OPEN: u32 = u32::MAX;
}

/// True where [`OldKernel`] knows the system call numbers.
pub const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// `__O_TMPFILE` (without its `O_DIRECTORY` half), the same on x86_64 and
/// aarch64.
const O_TMPFILE_BIT: u32 = 0o20_000_000;

const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JGE_K: u16 = 0x35;
const BPF_JSET_K: u16 = 0x45;
const BPF_RET_K: u16 = 0x06;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// Offset of the low 32 bits of argument `i` in `struct seccomp_data`
/// (little-endian: the low word comes first).
fn arg_low(i: u32) -> u32 {
    16 + 8 * i
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl OldKernel {
    fn first_missing(self) -> u32 {
        match self {
            OldKernel::Linux4_9 => arch::FIRST_AFTER_4_9,
            OldKernel::Linux3_10 => arch::FIRST_AFTER_3_10,
        }
    }

    fn tmpfile_errno(self) -> u32 {
        match self {
            OldKernel::Linux4_9 => libc::EOPNOTSUPP as u32,
            OldKernel::Linux3_10 => libc::EISDIR as u32,
        }
    }

    /// The BPF program.
    pub fn filter(self) -> Vec<libc::sock_filter> {
        let allow = libc::SECCOMP_RET_ALLOW;
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        let tmpfile = libc::SECCOMP_RET_ERRNO | self.tmpfile_errno();
        vec![
            /* 0 */ stmt(BPF_LD_W_ABS, 4),
            // Another ABI (x32, a 32-bit binary): not ours to judge.
            /* 1 */
            jump(BPF_JEQ_K, arch::AUDIT_ARCH, 1, 0),
            /* 2 */ stmt(BPF_RET_K, allow),
            /* 3 */ stmt(BPF_LD_W_ABS, 0),
            /* 4 */ jump(BPF_JGE_K, self.first_missing(), 0, 1),
            /* 5 */ stmt(BPF_RET_K, enosys),
            /* 6 */ jump(BPF_JEQ_K, libc::SYS_openat as u32, 0, 4),
            /* 7 */ stmt(BPF_LD_W_ABS, arg_low(2)),
            /* 8 */ jump(BPF_JSET_K, O_TMPFILE_BIT, 0, 1),
            /* 9 */ stmt(BPF_RET_K, tmpfile),
            /* 10 */ stmt(BPF_RET_K, allow),
            /* 11 */ jump(BPF_JEQ_K, arch::OPEN, 0, 3),
            /* 12 */ stmt(BPF_LD_W_ABS, arg_low(1)),
            /* 13 */ jump(BPF_JSET_K, O_TMPFILE_BIT, 0, 1),
            /* 14 */ stmt(BPF_RET_K, tmpfile),
            /* 15 */ stmt(BPF_RET_K, allow),
        ]
    }

    /// Makes `cmd` run under this kernel's filter. The filter is built
    /// here, before the fork: the hook only makes two prctl calls, which
    /// are safe between fork and exec.
    pub fn apply(self, cmd: &mut Command) -> &mut Command {
        self.hook(cmd, false)
    }

    /// [`apply`](Self::apply), and the child sees an empty `/dev` (a
    /// tmpfs in its own mount namespace), as in a rescue chroot where
    /// only /proc and /sys were mounted: no `/dev/urandom` to fall back on
    /// when getrandom is missing. Root only.
    pub fn apply_without_dev(self, cmd: &mut Command) -> &mut Command {
        self.hook(cmd, true)
    }

    fn hook(self, cmd: &mut Command, hide_dev: bool) -> &mut Command {
        let filter = self.filter();
        // SAFETY: the hook calls only unshare, mount and prctl (system
        // calls, async-signal-safe) on memory that the closure owns, and
        // returns the OS error when one fails.
        unsafe {
            cmd.pre_exec(move || {
                if hide_dev {
                    let none = std::ptr::null::<libc::c_char>();
                    if libc::unshare(libc::CLONE_NEWNS) != 0
                        || libc::mount(
                            none,
                            c"/".as_ptr(),
                            none,
                            libc::MS_REC | libc::MS_PRIVATE,
                            std::ptr::null(),
                        ) != 0
                        || libc::mount(
                            c"tmpfs".as_ptr(),
                            c"/dev".as_ptr(),
                            c"tmpfs".as_ptr(),
                            0,
                            std::ptr::null(),
                        ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                let prog = libc::sock_fprog {
                    len: filter.len() as libc::c_ushort,
                    filter: filter.as_ptr() as *mut libc::sock_filter,
                };
                // Required to install a filter without CAP_SYS_ADMIN, and
                // harmless with it.
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &prog as *const libc::sock_fprog,
                ) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        }
    }
}
