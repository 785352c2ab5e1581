//! The public parsers never panic: real lines cut at every character, and
//! pseudo-random strings over the characters that matter to them.

use quickbench::blockdev::{
    parse_block_stat, parse_mountinfo_line, parse_udev_db, size_text, unescape,
};

const REAL: &[&str] = &[
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict",
    "36 35 98:0 /mnt\\0401 /mnt/my\\040disk rw,noatime master:1 shared:7 - ext3 /dev/root rw",
    "40 31 0:38 / /x rw - tmpfs  rw,size=4k",
    "E:ID_FS_TYPE=zfs_member\nE:ID_FS_LABEL=tank\nS:disk/by-id/x",
    "   45613     3297  3990498    13766   105420   123063  5423224   163930        0   179940   191283        0        0        0        0    21744    13586",
];

fn exercise(s: &str) {
    let _ = parse_mountinfo_line(s);
    let _ = parse_udev_db(s);
    let _ = parse_block_stat(s);
    let _ = unescape(s);
}

#[test]
fn truncated_real_lines_do_not_panic() {
    for line in REAL {
        for (i, _) in line.char_indices() {
            exercise(&line[..i]);
            exercise(&line[i..]);
        }
    }
}

#[test]
fn random_strings_do_not_panic() {
    const ALPHABET: &[char] = &[
        ' ', ' ', '-', ':', '\\', '0', '1', '4', '7', '8', '9', '/', 'a', '=', 'E', '\n', ',', 'é',
        '\t', '\0',
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 60) as usize;
        let mut y = x;
        let s: String = (0..len)
            .map(|_| {
                y = y.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ALPHABET[((y >> 33) % ALPHABET.len() as u64) as usize]
            })
            .collect();
        exercise(&s);
        let _ = size_text(x);
    }
}
