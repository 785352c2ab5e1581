//! s390 `/proc/sysinfo` (`CPU Topology SW:`), the hotplug `states` file and
//! the `%d` scanner behind `kernel_max`, then the topology arithmetic that
//! uses them (`compute_topology`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quickbench::sysinfo::cpu::topology::{
    compute_topology, parse_online_state, parse_sysinfo_topology, scan_int, CpuMasks,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let topo = parse_sysinfo_topology(&text);
    let _ = parse_online_state(&text);
    let _ = scan_int(&text);
    let first_line = text.lines().next().unwrap_or("");
    let masks = vec![CpuMasks::default(); 2];
    let t = compute_topology(&masks, topo, Some(first_line));
    if let Some(s) = topo {
        assert_eq!(t.cores_per_socket, s.cores_per_socket);
        assert_eq!(t.sockets_per_book, s.sockets_per_book);
    }
});
