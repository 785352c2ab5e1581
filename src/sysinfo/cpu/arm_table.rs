//! ARM implementer and part names, as data, after util-linux
//! `sys-utils/lscpu-arm.c` (HEAD 39465c780, v2.43-devel naming).
//! Generated from that table; edit with care.

/// Prefer the kernel's `model name` over the table's name.
pub(super) const FOLLOW_KERNEL: u32 = 1;
/// Prefer the SMBIOS model name when it holds `bios_match`.
pub(super) const FOLLOW_BIOS: u32 = 2;

/// One part of an implementer.
pub(super) struct Part {
    pub id: i64,
    pub name: &'static str,
    pub flags: u32,
    pub bios_match: Option<&'static str>,
}

/// One implementer and its parts.
pub(super) struct Implementer {
    pub id: i64,
    pub name: &'static str,
    pub flags: u32,
    pub parts: &'static [Part],
}

#[rustfmt::skip]
const ARM_PART: &[Part] = &[
    Part { id: 0x810, name: "ARM810", flags: 0, bios_match: None },
    Part { id: 0x920, name: "ARM920", flags: 0, bios_match: None },
    Part { id: 0x922, name: "ARM922", flags: 0, bios_match: None },
    Part { id: 0x926, name: "ARM926", flags: 0, bios_match: None },
    Part { id: 0x940, name: "ARM940", flags: 0, bios_match: None },
    Part { id: 0x946, name: "ARM946", flags: 0, bios_match: None },
    Part { id: 0x966, name: "ARM966", flags: 0, bios_match: None },
    Part { id: 0xa20, name: "ARM1020", flags: 0, bios_match: None },
    Part { id: 0xa22, name: "ARM1022", flags: 0, bios_match: None },
    Part { id: 0xa26, name: "ARM1026", flags: 0, bios_match: None },
    Part { id: 0xb02, name: "ARM11-MPCore", flags: 0, bios_match: None },
    Part { id: 0xb36, name: "ARM1136", flags: 0, bios_match: None },
    Part { id: 0xb56, name: "ARM1156", flags: 0, bios_match: None },
    Part { id: 0xb76, name: "ARM1176", flags: 0, bios_match: None },
    Part { id: 0xc05, name: "Cortex-A5", flags: 0, bios_match: None },
    Part { id: 0xc07, name: "Cortex-A7", flags: 0, bios_match: None },
    Part { id: 0xc08, name: "Cortex-A8", flags: 0, bios_match: None },
    Part { id: 0xc09, name: "Cortex-A9", flags: 0, bios_match: None },
    Part { id: 0xc0d, name: "Cortex-A17", flags: 0, bios_match: None },
    Part { id: 0xc0f, name: "Cortex-A15", flags: 0, bios_match: None },
    Part { id: 0xc0e, name: "Cortex-A17", flags: 0, bios_match: None },
    Part { id: 0xc14, name: "Cortex-R4", flags: 0, bios_match: None },
    Part { id: 0xc15, name: "Cortex-R5", flags: 0, bios_match: None },
    Part { id: 0xc17, name: "Cortex-R7", flags: 0, bios_match: None },
    Part { id: 0xc18, name: "Cortex-R8", flags: 0, bios_match: None },
    Part { id: 0xc20, name: "Cortex-M0", flags: 0, bios_match: None },
    Part { id: 0xc21, name: "Cortex-M1", flags: 0, bios_match: None },
    Part { id: 0xc23, name: "Cortex-M3", flags: 0, bios_match: None },
    Part { id: 0xc24, name: "Cortex-M4", flags: 0, bios_match: None },
    Part { id: 0xc27, name: "Cortex-M7", flags: 0, bios_match: None },
    Part { id: 0xc60, name: "Cortex-M0+", flags: 0, bios_match: None },
    Part { id: 0xd01, name: "Cortex-A32", flags: 0, bios_match: None },
    Part { id: 0xd02, name: "Cortex-A34", flags: 0, bios_match: None },
    Part { id: 0xd03, name: "Cortex-A53", flags: 0, bios_match: None },
    Part { id: 0xd04, name: "Cortex-A35", flags: 0, bios_match: None },
    Part { id: 0xd05, name: "Cortex-A55", flags: 0, bios_match: None },
    Part { id: 0xd06, name: "Cortex-A65", flags: 0, bios_match: None },
    Part { id: 0xd07, name: "Cortex-A57", flags: 0, bios_match: None },
    Part { id: 0xd08, name: "Cortex-A72", flags: 0, bios_match: None },
    Part { id: 0xd09, name: "Cortex-A73", flags: 0, bios_match: None },
    Part { id: 0xd0a, name: "Cortex-A75", flags: 0, bios_match: None },
    Part { id: 0xd0b, name: "Cortex-A76", flags: 0, bios_match: None },
    Part { id: 0xd0c, name: "Neoverse-N1", flags: 0, bios_match: None },
    Part { id: 0xd0d, name: "Cortex-A77", flags: 0, bios_match: None },
    Part { id: 0xd0e, name: "Cortex-A76AE", flags: 0, bios_match: None },
    Part { id: 0xd13, name: "Cortex-R52", flags: 0, bios_match: None },
    Part { id: 0xd14, name: "Cortex-R82AE", flags: 0, bios_match: None },
    Part { id: 0xd15, name: "Cortex-R82", flags: 0, bios_match: None },
    Part { id: 0xd16, name: "Cortex-R52+", flags: 0, bios_match: None },
    Part { id: 0xd20, name: "Cortex-M23", flags: 0, bios_match: None },
    Part { id: 0xd21, name: "Cortex-M33", flags: 0, bios_match: None },
    Part { id: 0xd24, name: "Cortex-M52", flags: 0, bios_match: None },
    Part { id: 0xd22, name: "Cortex-M55", flags: 0, bios_match: None },
    Part { id: 0xd23, name: "Cortex-M85", flags: 0, bios_match: None },
    Part { id: 0xd40, name: "Neoverse-V1", flags: 0, bios_match: None },
    Part { id: 0xd41, name: "Cortex-A78", flags: 0, bios_match: None },
    Part { id: 0xd42, name: "Cortex-A78AE", flags: 0, bios_match: None },
    Part { id: 0xd43, name: "Cortex-A65AE", flags: 0, bios_match: None },
    Part { id: 0xd44, name: "Cortex-X1", flags: 0, bios_match: None },
    Part { id: 0xd46, name: "Cortex-A510", flags: 0, bios_match: None },
    Part { id: 0xd47, name: "Cortex-A710", flags: 0, bios_match: None },
    Part { id: 0xd48, name: "Cortex-X2", flags: 0, bios_match: None },
    Part { id: 0xd49, name: "Neoverse-N2", flags: 0, bios_match: None },
    Part { id: 0xd4a, name: "Neoverse-E1", flags: 0, bios_match: None },
    Part { id: 0xd4b, name: "Cortex-A78C", flags: 0, bios_match: None },
    Part { id: 0xd4c, name: "Cortex-X1C", flags: 0, bios_match: None },
    Part { id: 0xd4d, name: "Cortex-A715", flags: 0, bios_match: None },
    Part { id: 0xd4e, name: "Cortex-X3", flags: 0, bios_match: None },
    Part { id: 0xd4f, name: "Neoverse-V2", flags: 0, bios_match: None },
    Part { id: 0xd80, name: "Cortex-A520", flags: 0, bios_match: None },
    Part { id: 0xd81, name: "Cortex-A720", flags: 0, bios_match: None },
    Part { id: 0xd82, name: "Cortex-X4", flags: 0, bios_match: None },
    Part { id: 0xd83, name: "Neoverse-V3AE", flags: 0, bios_match: None },
    Part { id: 0xd84, name: "Neoverse-V3", flags: 0, bios_match: None },
    Part { id: 0xd85, name: "Cortex-X925", flags: 0, bios_match: None },
    Part { id: 0xd87, name: "Cortex-A725", flags: 0, bios_match: None },
    Part { id: 0xd88, name: "Cortex-A520AE", flags: 0, bios_match: None },
    Part { id: 0xd89, name: "Cortex-A720AE", flags: 0, bios_match: None },
    Part { id: 0xd8a, name: "C1-Nano", flags: 0, bios_match: None },
    Part { id: 0xd8b, name: "C1-Pro", flags: 0, bios_match: None },
    Part { id: 0xd8c, name: "C1-Ultra", flags: 0, bios_match: None },
    Part { id: 0xd8e, name: "Neoverse-N3", flags: 0, bios_match: None },
    Part { id: 0xd8f, name: "Cortex-A320", flags: 0, bios_match: None },
    Part { id: 0xd90, name: "C1-Premium", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const BRCM_PART: &[Part] = &[
    Part { id: 0x00f, name: "Brahma-B15", flags: 0, bios_match: None },
    Part { id: 0x100, name: "Brahma-B53", flags: 0, bios_match: None },
    Part { id: 0x516, name: "ThunderX2", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const DEC_PART: &[Part] = &[
    Part { id: 0xa10, name: "SA110", flags: 0, bios_match: None },
    Part { id: 0xa11, name: "SA1100", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const CAVIUM_PART: &[Part] = &[
    Part { id: 0x0a0, name: "ThunderX", flags: 0, bios_match: None },
    Part { id: 0x0a1, name: "ThunderX-88XX", flags: 0, bios_match: None },
    Part { id: 0x0a2, name: "ThunderX-81XX", flags: 0, bios_match: None },
    Part { id: 0x0a3, name: "ThunderX-83XX", flags: 0, bios_match: None },
    Part { id: 0x0af, name: "ThunderX2-99xx", flags: 0, bios_match: None },
    Part { id: 0x0b0, name: "OcteonTX2", flags: 0, bios_match: None },
    Part { id: 0x0b1, name: "OcteonTX2-98XX", flags: 0, bios_match: None },
    Part { id: 0x0b2, name: "OcteonTX2-96XX", flags: 0, bios_match: None },
    Part { id: 0x0b3, name: "OcteonTX2-95XX", flags: 0, bios_match: None },
    Part { id: 0x0b4, name: "OcteonTX2-95XXN", flags: 0, bios_match: None },
    Part { id: 0x0b5, name: "OcteonTX2-95XXMM", flags: 0, bios_match: None },
    Part { id: 0x0b6, name: "OcteonTX2-95XXO", flags: 0, bios_match: None },
    Part { id: 0x0b8, name: "ThunderX3-T110", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const APM_PART: &[Part] = &[
    Part { id: 0x000, name: "X-Gene", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const QCOM_PART: &[Part] = &[
    Part { id: 0x001, name: "Oryon", flags: 0, bios_match: None },
    Part { id: 0x00f, name: "Scorpion", flags: 0, bios_match: None },
    Part { id: 0x02d, name: "Scorpion", flags: 0, bios_match: None },
    Part { id: 0x04d, name: "Krait", flags: 0, bios_match: None },
    Part { id: 0x06f, name: "Krait", flags: 0, bios_match: None },
    Part { id: 0x201, name: "Kryo", flags: 0, bios_match: None },
    Part { id: 0x205, name: "Kryo", flags: 0, bios_match: None },
    Part { id: 0x211, name: "Kryo", flags: 0, bios_match: None },
    Part { id: 0x800, name: "Falkor-V1/Kryo", flags: 0, bios_match: None },
    Part { id: 0x801, name: "Kryo-V2", flags: 0, bios_match: None },
    Part { id: 0x802, name: "Kryo-3XX-Gold", flags: 0, bios_match: None },
    Part { id: 0x803, name: "Kryo-3XX-Silver", flags: 0, bios_match: None },
    Part { id: 0x804, name: "Kryo-4XX-Gold", flags: 0, bios_match: None },
    Part { id: 0x805, name: "Kryo-4XX-Silver", flags: 0, bios_match: None },
    Part { id: 0xc00, name: "Falkor", flags: 0, bios_match: None },
    Part { id: 0xc01, name: "Saphira", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const SAMSUNG_PART: &[Part] = &[
    Part { id: 0x001, name: "exynos-m1", flags: 0, bios_match: None },
    Part { id: 0x002, name: "exynos-m3", flags: 0, bios_match: None },
    Part { id: 0x003, name: "exynos-m4", flags: 0, bios_match: None },
    Part { id: 0x004, name: "exynos-m5", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const NVIDIA_PART: &[Part] = &[
    Part { id: 0x000, name: "Denver", flags: 0, bios_match: None },
    Part { id: 0x003, name: "Denver-2", flags: 0, bios_match: None },
    Part { id: 0x004, name: "Carmel", flags: 0, bios_match: None },
    Part { id: 0x010, name: "Olympus", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const MARVELL_PART: &[Part] = &[
    Part { id: 0x131, name: "Feroceon-88FR131", flags: 0, bios_match: None },
    Part { id: 0x581, name: "PJ4/PJ4b", flags: 0, bios_match: None },
    Part { id: 0x584, name: "PJ4B-MP", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const APPLE_PART: &[Part] = &[
    Part { id: 0x000, name: "Swift", flags: 0, bios_match: None },
    Part { id: 0x001, name: "Cyclone", flags: 0, bios_match: None },
    Part { id: 0x002, name: "Typhoon", flags: 0, bios_match: None },
    Part { id: 0x003, name: "Typhoon/Capri", flags: 0, bios_match: None },
    Part { id: 0x004, name: "Twister", flags: 0, bios_match: None },
    Part { id: 0x005, name: "Twister/Elba/Malta", flags: 0, bios_match: None },
    Part { id: 0x006, name: "Hurricane", flags: 0, bios_match: None },
    Part { id: 0x007, name: "Hurricane/Myst", flags: 0, bios_match: None },
    Part { id: 0x008, name: "Monsoon", flags: 0, bios_match: None },
    Part { id: 0x009, name: "Mistral", flags: 0, bios_match: None },
    Part { id: 0x00b, name: "Vortex", flags: 0, bios_match: None },
    Part { id: 0x00c, name: "Tempest", flags: 0, bios_match: None },
    Part { id: 0x00f, name: "Tempest-M9", flags: 0, bios_match: None },
    Part { id: 0x010, name: "Vortex/Aruba", flags: 0, bios_match: None },
    Part { id: 0x011, name: "Tempest/Aruba", flags: 0, bios_match: None },
    Part { id: 0x012, name: "Lightning", flags: 0, bios_match: None },
    Part { id: 0x013, name: "Thunder", flags: 0, bios_match: None },
    Part { id: 0x020, name: "Icestorm-A14", flags: 0, bios_match: None },
    Part { id: 0x021, name: "Firestorm-A14", flags: 0, bios_match: None },
    Part { id: 0x022, name: "Icestorm-M1", flags: 0, bios_match: None },
    Part { id: 0x023, name: "Firestorm-M1", flags: 0, bios_match: None },
    Part { id: 0x024, name: "Icestorm-M1-Pro", flags: 0, bios_match: None },
    Part { id: 0x025, name: "Firestorm-M1-Pro", flags: 0, bios_match: None },
    Part { id: 0x026, name: "Thunder-M10", flags: 0, bios_match: None },
    Part { id: 0x028, name: "Icestorm-M1-Max", flags: 0, bios_match: None },
    Part { id: 0x029, name: "Firestorm-M1-Max", flags: 0, bios_match: None },
    Part { id: 0x030, name: "Blizzard-A15", flags: 0, bios_match: None },
    Part { id: 0x031, name: "Avalanche-A15", flags: 0, bios_match: None },
    Part { id: 0x032, name: "Blizzard-M2", flags: 0, bios_match: None },
    Part { id: 0x033, name: "Avalanche-M2", flags: 0, bios_match: None },
    Part { id: 0x034, name: "Blizzard-M2-Pro", flags: 0, bios_match: None },
    Part { id: 0x035, name: "Avalanche-M2-Pro", flags: 0, bios_match: None },
    Part { id: 0x036, name: "Sawtooth-A16", flags: 0, bios_match: None },
    Part { id: 0x037, name: "Everest-A16", flags: 0, bios_match: None },
    Part { id: 0x038, name: "Blizzard-M2-Max", flags: 0, bios_match: None },
    Part { id: 0x039, name: "Avalanche-M2-Max", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const FARADAY_PART: &[Part] = &[
    Part { id: 0x526, name: "FA526", flags: 0, bios_match: None },
    Part { id: 0x626, name: "FA626", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const INTEL_PART: &[Part] = &[
    Part { id: 0x200, name: "i80200", flags: 0, bios_match: None },
    Part { id: 0x210, name: "PXA250A", flags: 0, bios_match: None },
    Part { id: 0x212, name: "PXA210A", flags: 0, bios_match: None },
    Part { id: 0x242, name: "i80321-400", flags: 0, bios_match: None },
    Part { id: 0x243, name: "i80321-600", flags: 0, bios_match: None },
    Part { id: 0x290, name: "PXA250B/PXA26x", flags: 0, bios_match: None },
    Part { id: 0x292, name: "PXA210B", flags: 0, bios_match: None },
    Part { id: 0x2c2, name: "i80321-400-B0", flags: 0, bios_match: None },
    Part { id: 0x2c3, name: "i80321-600-B0", flags: 0, bios_match: None },
    Part { id: 0x2d0, name: "PXA250C/PXA255/PXA26x", flags: 0, bios_match: None },
    Part { id: 0x2d2, name: "PXA210C", flags: 0, bios_match: None },
    Part { id: 0x411, name: "PXA27x", flags: 0, bios_match: None },
    Part { id: 0x41c, name: "IPX425-533", flags: 0, bios_match: None },
    Part { id: 0x41d, name: "IPX425-400", flags: 0, bios_match: None },
    Part { id: 0x41f, name: "IPX425-266", flags: 0, bios_match: None },
    Part { id: 0x682, name: "PXA32x", flags: 0, bios_match: None },
    Part { id: 0x683, name: "PXA930/PXA935", flags: 0, bios_match: None },
    Part { id: 0x688, name: "PXA30x", flags: 0, bios_match: None },
    Part { id: 0x689, name: "PXA31x", flags: 0, bios_match: None },
    Part { id: 0xb11, name: "SA1110", flags: 0, bios_match: None },
    Part { id: 0xc12, name: "IPX1200", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const FUJITSU_PART: &[Part] = &[
    Part { id: 0x001, name: "A64FX", flags: 0, bios_match: None },
    Part { id: 0x003, name: "MONAKA", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const HISI_PART: &[Part] = &[
    Part { id: 0xd01, name: "Kunpeng-920", flags: FOLLOW_BIOS, bios_match: Some("Kunpeng") },
    Part { id: 0xd02, name: "Kunpeng-920", flags: FOLLOW_BIOS, bios_match: Some("Kunpeng") },
    Part { id: 0xd03, name: "Kunpeng-920", flags: FOLLOW_BIOS, bios_match: Some("Kunpeng") },
    Part { id: 0xd06, name: "Kunpeng-950", flags: FOLLOW_BIOS, bios_match: Some("Kunpeng") },
    Part { id: 0xd22, name: "Kunpeng-920", flags: FOLLOW_BIOS, bios_match: Some("Kunpeng") },
    Part { id: 0xd40, name: "Cortex-A76", flags: 0, bios_match: None },
    Part { id: 0xd41, name: "Cortex-A77", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const AMPERE_PART: &[Part] = &[
    Part { id: 0xac3, name: "Ampere-1", flags: 0, bios_match: None },
    Part { id: 0xac4, name: "Ampere-1a", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const FT_PART: &[Part] = &[
    Part { id: 0x303, name: "FTC310", flags: 0, bios_match: None },
    Part { id: 0x660, name: "FTC660", flags: 0, bios_match: None },
    Part { id: 0x661, name: "FTC661", flags: 0, bios_match: None },
    Part { id: 0x662, name: "FTC662", flags: 0, bios_match: None },
    Part { id: 0x663, name: "FTC663", flags: 0, bios_match: None },
    Part { id: 0x664, name: "FTC664", flags: 0, bios_match: None },
    Part { id: 0x862, name: "FTC862", flags: 0, bios_match: None },
];

#[rustfmt::skip]
const MS_PART: &[Part] = &[
    Part { id: 0xd49, name: "Azure-Cobalt-100", flags: 0, bios_match: None },
];

/// Implementers known to lscpu, with their part tables.
#[rustfmt::skip]
pub(super) const IMPLEMENTERS: &[Implementer] = &[
    Implementer { id: 0x41, name: "ARM", flags: 0, parts: ARM_PART },
    Implementer { id: 0x42, name: "Broadcom", flags: 0, parts: BRCM_PART },
    Implementer { id: 0x43, name: "Cavium", flags: 0, parts: CAVIUM_PART },
    Implementer { id: 0x44, name: "DEC", flags: 0, parts: DEC_PART },
    Implementer { id: 0x46, name: "FUJITSU", flags: 0, parts: FUJITSU_PART },
    Implementer { id: 0x48, name: "HiSilicon", flags: 0, parts: HISI_PART },
    Implementer { id: 0x49, name: "Infineon", flags: 0, parts: &[] },
    Implementer { id: 0x4d, name: "Motorola/Freescale", flags: 0, parts: &[] },
    Implementer { id: 0x4e, name: "NVIDIA", flags: 0, parts: NVIDIA_PART },
    Implementer { id: 0x50, name: "APM", flags: 0, parts: APM_PART },
    Implementer { id: 0x51, name: "Qualcomm", flags: 0, parts: QCOM_PART },
    Implementer { id: 0x53, name: "Samsung", flags: 0, parts: SAMSUNG_PART },
    Implementer { id: 0x56, name: "Marvell", flags: 0, parts: MARVELL_PART },
    Implementer { id: 0x61, name: "Apple", flags: 0, parts: APPLE_PART },
    Implementer { id: 0x66, name: "Faraday", flags: 0, parts: FARADAY_PART },
    Implementer { id: 0x69, name: "Intel", flags: 0, parts: INTEL_PART },
    Implementer { id: 0x6d, name: "Microsoft", flags: 0, parts: MS_PART },
    Implementer { id: 0x70, name: "Phytium", flags: FOLLOW_KERNEL, parts: FT_PART },
    Implementer { id: 0xc0, name: "Ampere", flags: 0, parts: AMPERE_PART },
];
