//! Prints the `[ CPU info ]` lines for the live system or a dump:
//! `cpuinfo [--sysroot DIR] [--only cpuinfo]` (`--only` is ignored; it lets
//! the same arguments serve the quickbench binary and this example).

use quickbench::sysinfo::cpu::read_summary;
use quickbench::Sysroot;

fn main() {
    let mut sys = Sysroot::live();
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sysroot" => match args.next() {
                Some(d) => sys = Sysroot::new(d),
                None => usage(),
            },
            "--only" => {
                args.next();
            }
            "--json" => json = true,
            _ => usage(),
        }
    }
    let summary = read_summary(&sys);
    for n in &summary.notes {
        eprintln!("cpuinfo: {n}");
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("serializable")
        );
        return;
    }
    for line in quickbench::report::text::cpu_info_lines(&quickbench::model::CpuInfo::from_summary(
        summary.clone(),
    )) {
        println!("{line}");
    }
}

fn usage() -> ! {
    eprintln!("usage: cpuinfo [--sysroot DIR] [--only LIST] [--json]");
    std::process::exit(2);
}
