//! The register map: where each source register lives in the target (`--regmap FILE`,
//! DESIGN.md §4). Defaults: DX `rN.c` ↔ NVIDIA `R(4N+c)`; every other source register
//! (DX inputs/outputs, vISA variables, NVIDIA registers past the DX temporaries) gets the
//! next free target register; vISA targets get one variable per source scalar.

use indexmap::IndexMap;

use crate::ir::{Isa, Reg};

/// Source register → target register, both in their ISA's register model
/// ([`crate::mappings::targets::RegisterModel`]). A vISA register here is the start of a raw
/// operand (`V57.64`): lane 0 of the instruction's `exec` lanes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterMap {
    /// Source register → target register, in the order they were mapped.
    pub entries: IndexMap<Reg, Reg>,
}

impl RegisterMap {
    /// The target register of `source`, if mapped.
    pub fn get(&self, source: &Reg) -> Option<Reg> {
        self.entries.get(source).copied()
    }
}

/// How `isa` spells a register (`r1.y`, `R5`, `V57.64`, `P0`), for the Report and regmap
/// files.
pub fn spell(isa: Isa, r: Reg) -> String {
    use crate::ir::RegFile;
    const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];
    let comp = XYZW.get(r.sub as usize).copied().unwrap_or('?');
    match (isa, r.file) {
        (Isa::Nvidia, RegFile::Temp) => format!("R{}", r.index),
        (Isa::Nvidia, RegFile::Predicate) => format!("P{}", r.index),
        (Isa::Visa, RegFile::Temp) => format!("V{}.{}", r.index, r.sub),
        (Isa::Visa, RegFile::Predicate) => format!("P{}", r.index),
        (Isa::Dxbc, RegFile::Temp) => format!("r{}.{comp}", r.index),
        (Isa::Dxbc, RegFile::Input) => format!("v{}.{comp}", r.index),
        (Isa::Dxbc, RegFile::Output) => format!("o{}.{comp}", r.index),
        _ => r.to_string(),
    }
}

use serde::Deserialize;
use toml::Spanned;

use super::bindings::line_column;
use crate::error::ConfigError;
use crate::ir::RegFile;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRaw {
    #[serde(default)]
    map: Vec<Spanned<EntryRaw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryRaw {
    source: Spanned<String>,
    target: Spanned<String>,
}

/// A register as `isa` spells it (`r1.y`, `v0.x`, `o2.w`; `R5`, `P0`; `V57.64`, `V57`).
pub fn parse_reg(isa: Isa, s: &str) -> Option<Reg> {
    let number = |d: &str| -> Option<u32> {
        (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .then(|| d.parse().ok())
            .flatten()
    };
    let reg = |file, index, sub| Some(Reg { file, index, sub });
    match isa {
        Isa::Dxbc => {
            let (name, comp) = s.split_once('.')?;
            let sub = match comp {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                "w" => 3,
                _ => return None,
            };
            let file = match name.as_bytes().first()? {
                b'r' => RegFile::Temp,
                b'v' => RegFile::Input,
                b'o' => RegFile::Output,
                _ => return None,
            };
            reg(file, number(&name[1..])?, sub)
        }
        Isa::Nvidia => match s.as_bytes().first()? {
            b'R' => number(&s[1..])
                .filter(|n| *n < 255)
                .and_then(|n| reg(RegFile::Temp, n, 0)),
            b'P' => number(&s[1..])
                .filter(|n| *n < 7)
                .and_then(|n| reg(RegFile::Predicate, n, 0)),
            _ => None,
        },
        Isa::Visa => {
            let body = s.strip_prefix('V')?;
            let (var, byte) = body.split_once('.').unwrap_or((body, "0"));
            reg(RegFile::Temp, number(var)?, number(byte)?)
        }
    }
}

fn expected(isa: Isa) -> &'static str {
    match isa {
        Isa::Dxbc => "a DX register component such as `r1.y`, `v0.x` or `o0.w`",
        Isa::Nvidia => "an NVIDIA register such as `R5` (R0..R254) or `P0`",
        Isa::Visa => "a vISA raw operand such as `V57.64` (variable and byte offset)",
    }
}

impl RegisterMap {
    /// Parses a register-map file translating from `from` to `to`:
    ///
    /// ```toml
    /// [[map]]
    /// source = "r1.y"
    /// target = "R5"
    /// ```
    ///
    /// Malformed entries, registers the ISA does not have, a source mapped twice and two
    /// sources sharing a target are errors with line and column.
    pub fn parse(file: &str, text: &str, from: Isa, to: Isa) -> Result<RegisterMap, ConfigError> {
        let at = |offset: usize, reason: String| {
            let (line, column) = line_column(text, offset);
            ConfigError {
                file: file.to_string(),
                line,
                column,
                reason,
            }
        };
        let raw: FileRaw = toml::from_str(text)
            .map_err(|e| at(e.span().map_or(0, |s| s.start), e.message().to_string()))?;
        let mut map = RegisterMap::default();
        for entry in &raw.map {
            let e = entry.get_ref();
            let source = parse_reg(from, e.source.get_ref()).ok_or_else(|| {
                at(
                    e.source.span().start,
                    format!("source `{}` is not {}", e.source.get_ref(), expected(from)),
                )
            })?;
            let target = parse_reg(to, e.target.get_ref()).ok_or_else(|| {
                at(
                    e.target.span().start,
                    format!("target `{}` is not {}", e.target.get_ref(), expected(to)),
                )
            })?;
            if map.entries.contains_key(&source) {
                return Err(at(
                    entry.span().start,
                    format!("source `{}` is mapped twice", e.source.get_ref()),
                ));
            }
            if let Some((s, _)) = map.entries.iter().find(|(_, t)| **t == target) {
                return Err(at(
                    entry.span().start,
                    format!(
                        "target `{}` is already the register of `{}`",
                        e.target.get_ref(),
                        spell(from, *s)
                    ),
                ));
            }
            map.entries.insert(source, target);
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_locates_errors() {
        let m = RegisterMap::parse(
            "m",
            "[[map]]\nsource = \"r1.y\"\ntarget = \"R5\"\n",
            Isa::Dxbc,
            Isa::Nvidia,
        )
        .unwrap();
        let (s, t) = m.entries.iter().next().unwrap();
        assert_eq!(spell(Isa::Dxbc, *s), "r1.y");
        assert_eq!(spell(Isa::Nvidia, *t), "R5");
        let e = RegisterMap::parse(
            "m",
            "[[map]]\nsource = \"r1.q\"\ntarget = \"R5\"\n",
            Isa::Dxbc,
            Isa::Nvidia,
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (2, 10), "{e}");
        let e = RegisterMap::parse(
            "m",
            "[[map]]\nsource = \"r1.x\"\ntarget = \"R255\"\n",
            Isa::Dxbc,
            Isa::Nvidia,
        )
        .unwrap_err();
        assert!(e.reason.contains("R0..R254"), "{e}");
        let e = RegisterMap::parse(
            "m",
            "[[map]]\nsource = \"r1.x\"\ntarget = \"R5\"\n[[map]]\nsource = \"r1.y\"\ntarget = \"R5\"\n",
            Isa::Dxbc,
            Isa::Nvidia,
        )
        .unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.reason.contains("already"), "{e}");
        assert_eq!(
            parse_reg(Isa::Visa, "V57.64").map(|r| (r.index, r.sub)),
            Some((57, 64))
        );
    }
}
