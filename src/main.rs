//! quickbench: a one-command Linux host benchmark (port of Bearstech's Quickbench).

use quickbench::sysroot;

fn main() {
    let _ = sysroot::Sysroot::live();
}
