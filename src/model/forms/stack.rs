//! The device stack's printed form: the lines of
//! `lsblk -s -o NAME,SIZE,TYPE,MOUNTPOINT`, then the notes line. The text
//! report prints it, the JSON stores it (`storage_stack`), and the readers
//! take it back: [`render`] and [`parse`] are the one definition of it,
//! and `parse(&render(s)) == s` for every stack.

use crate::blockdev::{Stack, StackNode};

/// Flattens the trees into (art+name, node) rows, lsblk's order.
fn flatten<'a>(
    n: &'a StackNode,
    prefix: &str,
    branch: &str,
    out: &mut Vec<(String, &'a StackNode)>,
) {
    out.push((format!("{prefix}{branch}{}", n.name), n));
    let below = match branch {
        "" => String::new(),
        "├─" => format!("{prefix}│ "),
        _ => format!("{prefix}  "),
    };
    for (i, c) in n.children.iter().enumerate() {
        let b = if i + 1 == n.children.len() {
            "└─"
        } else {
            "├─"
        };
        flatten(c, &below, b, out);
    }
}

/// The `[ Storage device stack ]` lines, as
/// `lsblk -s -o NAME,SIZE,TYPE,MOUNTPOINT` prints them in a UTF-8 locale
/// (checked byte for byte against lsblk 2.38): one space between columns,
/// SIZE right-aligned, the last column unpadded (an empty MOUNTPOINT still
/// leaves TYPE's padding and the separator).
pub fn render(stack: &Stack) -> Vec<String> {
    let mut rows = Vec::new();
    for t in &stack.roots {
        flatten(t, "", "", &mut rows);
    }
    let width = |s: &str| s.chars().count();
    let name_w = rows.iter().map(|(n, _)| width(n)).max().unwrap_or(0).max(4);
    let widest_size = rows.iter().map(|(_, n)| width(&n.size)).max().unwrap_or(0);
    let size_w = match widest_size {
        0..=3 => 4,
        4 => 5,
        w => w,
    };
    let type_w = rows
        .iter()
        .map(|(_, n)| width(&n.kind))
        .max()
        .unwrap_or(0)
        .max(4);
    let line = |name: &str, size: &str, kind: &str, mp: &str| {
        format!(
            "{}{} {}{} {}{} {}",
            name,
            " ".repeat(name_w - width(name)),
            " ".repeat(size_w.saturating_sub(width(size))),
            size,
            kind,
            " ".repeat(type_w - width(kind)),
            mp,
        )
    };
    let mut out = vec![line("NAME", "SIZE", "TYPE", "MOUNTPOINT")];
    out.extend(
        rows.iter()
            .map(|(name, n)| line(name, &n.size, &n.kind, &n.mountpoint)),
    );
    if !stack.notes.is_empty() {
        out.push(notes_line(&stack.notes));
    }
    out
}

/// `Notes     : loop0: backed by /img; sdb1: partition of sdb`.
pub fn notes_line(notes: &[String]) -> String {
    format!("{NOTES_LABEL}{}", notes.join(NOTES_SEPARATOR))
}

/// The label of the line that carries the target's notes.
pub const NOTES_LABEL: &str = "Notes     : ";
/// What separates two notes on that line.
pub const NOTES_SEPARATOR: &str = "; ";

/// Art that draws the tree: in UTF-8 (`├─`, `└─`, `│ `) or ASCII (`|-`,
/// `` `- ``, `| `) locales.
const BRANCHES: [&str; 4] = ["├─", "└─", "|-", "`-"];
const SPACERS: [&str; 3] = ["│ ", "| ", "  "];

/// Splits the art off a NAME cell: (depth, name).
fn strip_art(cell: &str) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = cell;
    'outer: loop {
        for s in SPACERS {
            if let Some(r) = rest.strip_prefix(s) {
                rest = r;
                depth += 1;
                continue 'outer;
            }
        }
        break;
    }
    for b in BRANCHES {
        if let Some(r) = rest.strip_prefix(b) {
            return (depth + 1, r);
        }
    }
    // Whitespace-collapsed art: `│ └─sda` became `│ └─sda` with single
    // spaces; lone `│`/`|` tokens still count.
    let trimmed = rest.trim_start_matches(['│', '|', ' ']);
    if trimmed.len() != rest.len() {
        let (d, name) = strip_art(trimmed);
        return (depth + d, name);
    }
    (depth, rest)
}

/// `[ Storage device stack ]` from its printed lines (header first): what
/// lsblk drew in a UTF-8 or an ASCII locale, aligned or
/// whitespace-collapsed.
///
/// A stack is kept only if it draws back into lines that read as the same
/// stack: art this reader misunderstands (a garbled paste) is refused
/// rather than redrawn as another tree.
pub fn parse(lines: &[String]) -> Result<Stack, String> {
    let stack = parse_stack(lines)?;
    match parse_stack(&render(&stack)) {
        Ok(again) if again == stack => Ok(stack),
        _ => Err(format!(
            "expected a device tree as lsblk draws it, found {:?}",
            lines.get(1).map_or("", String::as_str)
        )),
    }
}

fn parse_stack(lines: &[String]) -> Result<Stack, String> {
    let Some(header) = lines.first() else {
        return Ok(Stack {
            roots: Vec::new(),
            notes: Vec::new(),
        });
    };
    let cols: Vec<&str> = header.split_whitespace().collect();
    if cols.first() != Some(&"NAME") {
        return Err(format!(
            "expected the stack's header `NAME SIZE TYPE MOUNTPOINT`, found {header:?}"
        ));
    }
    let chars: Vec<char> = header.chars().collect();
    let col = |name: &str| {
        let h: String = chars.iter().collect();
        h.find(name).map(|b| h[..b].chars().count())
    };
    let (type_at, mp_at) = (col("TYPE"), col("MOUNTPOINT"));
    let mut flat: Vec<(usize, StackNode)> = Vec::new();
    let mut notes = Vec::new();
    for l in &lines[1..] {
        if let Some(n) = l.strip_prefix(NOTES_LABEL.trim_end()) {
            notes = n
                .trim()
                .split(NOTES_SEPARATOR.trim_end())
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            continue;
        }
        let c: Vec<char> = l.chars().collect();
        let aligned = type_at.is_some_and(|t| c.len() >= t && (t == 0 || c[t - 1] == ' '));
        let size_blank = aligned && type_at.is_some_and(|t| t >= 2 && c[t - 2] == ' ');
        let (left, kind, mp) = if aligned {
            let t = type_at.unwrap_or(0);
            let m = mp_at.unwrap_or(c.len()).min(c.len()).max(t);
            let left: String = c[..t].iter().collect();
            let kind: String = c[t..m].iter().collect();
            let mp: String = c[m..].iter().collect();
            (
                left.trim_end().to_string(),
                kind.trim().to_string(),
                mp.trim_end().to_string(),
            )
        } else {
            // Collapsed: NAME SIZE TYPE [MOUNTPOINT], one space apart.
            let toks: Vec<&str> = l.split(' ').filter(|s| !s.is_empty()).collect();
            let art = toks.iter().take_while(|t| ["│", "|"].contains(t)).count();
            let rest = &toks[art..];
            if rest.len() < 3 {
                return Err(format!(
                    "expected a stack line `NAME SIZE TYPE [MOUNTPOINT]`, found {l:?}"
                ));
            }
            let left = format!("{}{} {}", "│ ".repeat(art), rest[0], rest[1]);
            (left, rest[2].to_string(), rest[3..].join(" "))
        };
        // SIZE is right-aligned against TYPE: a blank there is no size.
        let (cell, size) = match (size_blank, left.rsplit_once(' ')) {
            (false, Some((name, size))) if !name.trim().is_empty() => {
                (name.trim_end().to_string(), size.to_string())
            }
            _ => (left.trim_end().to_string(), String::new()),
        };
        let (depth, name) = strip_art(&cell);
        let word = |w: &str| !w.chars().any(|c| c.is_whitespace() || c.is_control());
        if name.is_empty()
            || !word(name)
            || !word(&size)
            || !word(&kind)
            || mp.chars().any(char::is_control)
        {
            return Err(format!(
                "expected a stack line `NAME SIZE TYPE [MOUNTPOINT]`, found {l:?}"
            ));
        }
        flat.push((
            depth,
            StackNode {
                name: name.to_string(),
                size,
                kind,
                mountpoint: mp,
                children: Vec::new(),
            },
        ));
    }
    Ok(Stack {
        roots: build_tree(flat),
        notes,
    })
}

/// Nests (depth, node) rows, in lsblk's order, into trees.
fn build_tree(flat: Vec<(usize, StackNode)>) -> Vec<StackNode> {
    fn take(flat: &[(usize, StackNode)], i: &mut usize, depth: usize) -> Vec<StackNode> {
        let mut out = Vec::new();
        while *i < flat.len() && flat[*i].0 >= depth {
            let mut node = flat[*i].1.clone();
            let d = flat[*i].0;
            *i += 1;
            node.children = take(flat, i, d + 1);
            out.push(node);
        }
        out
    }
    let mut i = 0;
    let mut roots = Vec::new();
    while i < flat.len() {
        let d = flat[i].0;
        roots.extend(take(&flat, &mut i, d));
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, size: &str, kind: &str, mp: &str, children: Vec<StackNode>) -> StackNode {
        StackNode {
            name: name.into(),
            size: size.into(),
            kind: kind.into(),
            mountpoint: mp.into(),
            children,
        }
    }

    fn luks_lvm_raid1() -> Stack {
        let part = |p: &str, d: &str| {
            node(
                p,
                "3.6T",
                "part",
                "",
                vec![node(d, "3.6T", "disk", "", vec![])],
            )
        };
        let md = node(
            "md0",
            "3.6T",
            "raid1",
            "",
            vec![part("sda1", "sda"), part("sdb1", "sdb")],
        );
        let lvm = node("vg0-root", "200G", "lvm", "", vec![md]);
        Stack {
            roots: vec![node("cryptroot", "200G", "crypt", "/", vec![lvm])],
            notes: Vec::new(),
        }
    }

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn draws_the_luks_lvm_raid1_tree() {
        assert_eq!(
            render(&luks_lvm_raid1()),
            vec![
                "NAME         SIZE TYPE  MOUNTPOINT",
                "cryptroot    200G crypt /",
                "└─vg0-root   200G lvm   ",
                "  └─md0      3.6T raid1 ",
                "    ├─sda1   3.6T part  ",
                "    │ └─sda  3.6T disk  ",
                "    └─sdb1   3.6T part  ",
                "      └─sdb  3.6T disk  ",
            ]
        );
    }

    /// Every shape the stack takes reads back from its lines: one tree,
    /// several trees (a multi-device btrfs), notes, a device of unknown
    /// size, a mount point with spaces, no device at all.
    #[test]
    fn parse_reads_back_what_render_draws() {
        let mut several = luks_lvm_raid1();
        several
            .roots
            .push(node("loop0", "", "loop", "/mnt/with space", Vec::new()));
        several.roots.push(node(
            "nvme0n1p2",
            "1.8T",
            "part",
            "[SWAP]",
            vec![node("nvme0n1", "1.8T", "disk", "", vec![])],
        ));
        several.notes = vec![
            "loop0: backed by /img".into(),
            "nvme0n1p2: partition of nvme0n1".into(),
        ];
        let stacks = [
            luks_lvm_raid1(),
            several,
            Stack {
                roots: Vec::new(),
                notes: Vec::new(),
            },
        ];
        for s in stacks {
            let drawn = render(&s);
            assert_eq!(parse(&drawn), Ok(s.clone()), "{drawn:#?}");
        }
    }

    #[test]
    fn the_notes_line_closes_the_stack() {
        let mut s = luks_lvm_raid1();
        s.notes = vec!["a: b".into(), "c".into()];
        assert_eq!(render(&s).last().unwrap(), "Notes     : a: b; c");
        assert_eq!(notes_line(&s.notes), "Notes     : a: b; c");
    }

    #[test]
    fn collapsed_stack_lines_still_read() {
        let s = parse(&lines(&[
            "NAME SIZE TYPE MOUNTPOINT",
            "vg0-root 200G lvm /",
            "└─md0 3.6T raid1",
        ]))
        .unwrap();
        assert_eq!(s.roots.len(), 1);
        assert_eq!(s.roots[0].mountpoint, "/");
        assert_eq!(s.roots[0].children[0].name, "md0");
        assert_eq!(s.roots[0].children[0].kind, "raid1");
    }

    #[test]
    fn ascii_art_reads_as_the_same_tree() {
        let s = parse(&lines(&[
            "NAME        SIZE TYPE  MOUNTPOINT",
            "cryptroot   200G crypt /",
            "`-vg0-root  200G lvm   ",
            "  |-sda1    3.6T part  ",
            "  | `-sda   3.6T disk  ",
            "  `-sdb1    3.6T part  ",
        ]))
        .unwrap();
        let lvm = &s.roots[0].children[0];
        assert_eq!(lvm.children.len(), 2);
        assert_eq!(lvm.children[0].children[0].name, "sda");
    }

    /// Found by fuzzing: a garbled stack row read into a name with a
    /// control character, which drew a tree of another width.
    #[test]
    fn stack_cells_with_controls_are_refused() {
        let garbled = lines(&["NAME   SIZE TYPE MOUNTPOINT", "sd\ra   1G disk "]);
        assert!(parse(&garbled).is_err());
        assert!(parse(&lines(&["DEVICE SIZE"])).is_err());
    }
}
