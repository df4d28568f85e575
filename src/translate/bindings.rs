//! Bindings: which texture (and sampler) each ISA calls one resource, with its dimension and
//! return type (`--bindings FILE`, DESIGN.md §4). One file serves every direction.
//!
//! ```toml
//! [[binding]]
//! dim = "2d"         # 1d 2d 3d cube 1d_array 2d_array cube_array 2d_ms 2d_ms_array buffer
//! return = "float"   # optional (default float): float unorm snorm sint uint
//! dxbc = { texture = "t0", sampler = "s0" }
//! visa = { texture = "T6", sampler = "S0" }
//! nvidia = { texture = "0x6e" }
//! ```

use crate::ir::{Dim, Dimension, Isa};

/// The return type of a resource (what DX declares; what a sample converts to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnType {
    /// 32-bit float.
    Float,
    /// Unsigned normalized, read as float in [0, 1].
    Unorm,
    /// Signed normalized, read as float in [-1, 1].
    Snorm,
    /// Signed integer.
    Sint,
    /// Unsigned integer.
    Uint,
}

impl ReturnType {
    /// The spelling in a bindings file.
    pub fn name(self) -> &'static str {
        match self {
            ReturnType::Float => "float",
            ReturnType::Unorm => "unorm",
            ReturnType::Snorm => "snorm",
            ReturnType::Sint => "sint",
            ReturnType::Uint => "uint",
        }
    }
}

/// What one ISA calls a resource: its texture slot and, where it has one, its sampler.
/// NVIDIA names both in one index (`(sampler << 8) | texture`, seeds/nvidia-TEX.txt
/// `#tsPtrIdxU13 = {#smpU05, #tidU08}`), so its `sampler` is always `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The texture slot (`tN`, `T<n>`, or NVIDIA's whole index).
    pub texture: u32,
    /// The sampler slot (`sN`, `S<n>`); `None` on NVIDIA and for sampler-less fetches.
    pub sampler: Option<u32>,
}

/// One `[[binding]]` row: a texture (+ sampler) combination as every ISA names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The resource's dimension.
    pub dim: Dimension,
    /// The resource's return type.
    pub return_type: ReturnType,
    /// Its vISA texture and sampler.
    pub visa: Option<Slot>,
    /// Its DX texture and sampler.
    pub dxbc: Option<Slot>,
    /// Its NVIDIA index.
    pub nvidia: Option<Slot>,
    /// Where the row starts in the bindings file (1-based line), 0 for a default row.
    pub line: u32,
}

impl Binding {
    /// The slot `isa` gives this row.
    pub fn slot(&self, isa: Isa) -> Option<Slot> {
        match isa {
            Isa::Visa => self.visa,
            Isa::Dxbc => self.dxbc,
            Isa::Nvidia => self.nvidia,
        }
    }
}

/// Every binding a translation uses, in order: rows of the bindings file, then default rows
/// texlate added for resources the file does not name. The Report prints it; the semantic
/// check names resources by row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    /// The rows, in file order (defaults appended as they are made).
    pub rows: Vec<Binding>,
}

/// The spelling of a dimension in a bindings file.
pub fn dim_name(dim: Dimension) -> &'static str {
    match dim {
        Dimension::Known {
            dim,
            arrayed,
            multisampled,
        } => match (dim, arrayed, multisampled) {
            (Dim::D1, false, _) => "1d",
            (Dim::D1, true, _) => "1d_array",
            (Dim::D2, false, false) => "2d",
            (Dim::D2, true, false) => "2d_array",
            (Dim::D2, false, true) => "2d_ms",
            (Dim::D2, true, true) => "2d_ms_array",
            (Dim::D3, ..) => "3d",
            (Dim::Cube, false, _) => "cube",
            (Dim::Cube, true, _) => "cube_array",
            (Dim::Buffer | Dim::RawBuffer | Dim::StructuredBuffer, ..) => "buffer",
        },
        Dimension::Deferred => "deferred",
    }
}

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRaw {
    #[serde(default)]
    binding: Vec<Spanned<RowRaw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowRaw {
    dim: Spanned<String>,
    #[serde(rename = "return")]
    ret: Option<Spanned<String>>,
    visa: Option<Spanned<SlotRaw>>,
    dxbc: Option<Spanned<SlotRaw>>,
    nvidia: Option<Spanned<SlotRaw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SlotRaw {
    texture: Spanned<String>,
    sampler: Option<Spanned<String>>,
}

/// Line and column (1-based) of byte `offset` of `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1) as u32
        + 1;
    (line, column)
}

/// The error at byte `offset` of a bindings file.
fn error_at(file: &str, text: &str, offset: usize, reason: impl Into<String>) -> ConfigError {
    let (line, column) = line_column(text, offset);
    ConfigError {
        file: file.to_string(),
        line,
        column,
        reason: reason.into(),
    }
}

/// The dimension a bindings file spells `name`.
pub fn parse_dim(name: &str) -> Option<Dimension> {
    let (dim, arrayed, multisampled) = match name {
        "1d" => (Dim::D1, false, false),
        "2d" => (Dim::D2, false, false),
        "3d" => (Dim::D3, false, false),
        "cube" => (Dim::Cube, false, false),
        "1d_array" => (Dim::D1, true, false),
        "2d_array" => (Dim::D2, true, false),
        "cube_array" => (Dim::Cube, true, false),
        "2d_ms" => (Dim::D2, false, true),
        "2d_ms_array" => (Dim::D2, true, true),
        "buffer" => (Dim::Buffer, false, false),
        _ => return None,
    };
    Some(Dimension::Known {
        dim,
        arrayed,
        multisampled,
    })
}

const DIMS: &str = "1d, 2d, 3d, cube, 1d_array, 2d_array, cube_array, 2d_ms, 2d_ms_array, buffer";

fn parse_return(name: &str) -> Option<ReturnType> {
    Some(match name {
        "float" => ReturnType::Float,
        "unorm" => ReturnType::Unorm,
        "snorm" => ReturnType::Snorm,
        "sint" => ReturnType::Sint,
        "uint" => ReturnType::Uint,
        _ => return None,
    })
}

/// The slot number `spelling` names: `prefix` then a decimal number (`t0`, `S3`).
fn prefixed(spelling: &str, prefix: char) -> Option<u32> {
    let digits = spelling.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// An NVIDIA texture index: hex (`0x6e`, as nvdisasm prints it) or decimal, 13 bits.
fn nvidia_index(spelling: &str) -> Option<u32> {
    let v = match spelling
        .strip_prefix("0x")
        .or_else(|| spelling.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => spelling.parse().ok()?,
    };
    (v < 1 << 13).then_some(v)
}

impl Bindings {
    /// Parses a bindings file. `file` names it in errors. Every malformed or conflicting
    /// entry is an error with its line and column.
    ///
    /// ```
    /// use texlate::translate::Bindings;
    /// use texlate::Isa;
    ///
    /// let text = r#"
    /// [[binding]]
    /// dim = "2d"
    /// visa = { texture = "T6", sampler = "S0" }
    /// dxbc = { texture = "t0", sampler = "s0" }
    /// "#;
    /// let bindings = Bindings::parse("bindings.toml", text).unwrap();
    /// let row = &bindings.rows[0];
    /// assert_eq!(row.slot(Isa::Dxbc).map(|s| s.texture), Some(0));
    ///
    /// let e = Bindings::parse("bindings.toml", "[[binding]]\ndim = \"5d\"\n").unwrap_err();
    /// assert_eq!((e.line, e.column), (2, 7));
    /// ```
    pub fn parse(file: &str, text: &str) -> Result<Bindings, ConfigError> {
        let raw: FileRaw = toml::from_str(text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            error_at(file, text, offset, e.message().to_string())
        })?;
        let mut rows = Vec::with_capacity(raw.binding.len());
        for row in &raw.binding {
            let at = row.span().start;
            let r = row.get_ref();
            let dim = parse_dim(r.dim.get_ref()).ok_or_else(|| {
                error_at(
                    file,
                    text,
                    r.dim.span().start,
                    format!("unknown dim `{}`; expected one of {DIMS}", r.dim.get_ref()),
                )
            })?;
            let return_type = match &r.ret {
                None => ReturnType::Float,
                Some(s) => parse_return(s.get_ref()).ok_or_else(|| {
                    error_at(
                        file,
                        text,
                        s.span().start,
                        format!(
                            "unknown return type `{}`; expected float, unorm, snorm, sint or uint",
                            s.get_ref()
                        ),
                    )
                })?,
            };
            let slot = |isa: Isa,
                        raw: &Option<Spanned<SlotRaw>>|
             -> Result<Option<Slot>, ConfigError> {
                let Some(raw) = raw else { return Ok(None) };
                let s = raw.get_ref();
                let (tex, smp, expected) = match isa {
                    Isa::Dxbc => (
                        prefixed(s.texture.get_ref(), 't'),
                        s.sampler.as_ref().map(|x| (prefixed(x.get_ref(), 's'), x)),
                        ("`t<n>`", "`s<n>`"),
                    ),
                    Isa::Visa => (
                        prefixed(s.texture.get_ref(), 'T'),
                        s.sampler.as_ref().map(|x| (prefixed(x.get_ref(), 'S'), x)),
                        ("`T<n>`", "`S<n>`"),
                    ),
                    Isa::Nvidia => {
                        if let Some(x) = &s.sampler {
                            return Err(error_at(
                                file,
                                text,
                                x.span().start,
                                "NVIDIA names texture and sampler in one index (`texture = \"0x6e\"`: sampler << 8 | texture); give no sampler",
                            ));
                        }
                        (
                            nvidia_index(s.texture.get_ref()),
                            None,
                            ("a 13-bit index such as `0x6e`", ""),
                        )
                    }
                };
                let texture = tex.ok_or_else(|| {
                    error_at(
                        file,
                        text,
                        s.texture.span().start,
                        format!(
                            "{} texture `{}` is not {}",
                            isa.name(),
                            s.texture.get_ref(),
                            expected.0
                        ),
                    )
                })?;
                let sampler = match smp {
                    None => None,
                    Some((Some(v), _)) => Some(v),
                    Some((None, x)) => {
                        return Err(error_at(
                            file,
                            text,
                            x.span().start,
                            format!(
                                "{} sampler `{}` is not {}",
                                isa.name(),
                                x.get_ref(),
                                expected.1
                            ),
                        ))
                    }
                };
                Ok(Some(Slot { texture, sampler }))
            };
            let binding = Binding {
                dim,
                return_type,
                visa: slot(Isa::Visa, &r.visa)?,
                dxbc: slot(Isa::Dxbc, &r.dxbc)?,
                nvidia: slot(Isa::Nvidia, &r.nvidia)?,
                line: line_column(text, at).0,
            };
            if binding.visa.is_none() && binding.dxbc.is_none() && binding.nvidia.is_none() {
                return Err(error_at(
                    file,
                    text,
                    at,
                    "a binding names no ISA's resource (give dxbc, visa and/or nvidia)",
                ));
            }
            for isa in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
                let Some(s) = binding.slot(isa) else { continue };
                if let Some(first) = rows.iter().find(|b: &&Binding| b.slot(isa) == Some(s)) {
                    return Err(error_at(
                        file,
                        text,
                        at,
                        format!(
                            "conflicting bindings: this row names the same {} resource as the row at line {}",
                            isa.name(),
                            first.line
                        ),
                    ));
                }
            }
            rows.push(binding);
        }
        Ok(Bindings { rows })
    }

    /// The row an instruction of `isa` reading `texture` (and `sampler`) matches: the row
    /// whose texture and sampler are its own; without a sampler, the first row with its
    /// texture.
    pub fn find(&self, isa: Isa, texture: u32, sampler: Option<u32>) -> Option<usize> {
        let same_texture = |b: &Binding| b.slot(isa).is_some_and(|s| s.texture == texture);
        match sampler {
            Some(smp) => self
                .rows
                .iter()
                .position(|b| same_texture(b) && b.slot(isa).and_then(|s| s.sampler) == Some(smp))
                .or_else(|| {
                    // A row that names no sampler serves any sampler of its texture.
                    self.rows.iter().position(|b| {
                        same_texture(b) && b.slot(isa).is_some_and(|s| s.sampler.is_none())
                    })
                }),
            None => self.rows.iter().position(same_texture),
        }
    }

    /// Every row as a bindings file (what `--bindings` reads back: a translation's bindings
    /// serve the way back).
    pub fn to_toml(&self) -> String {
        self.rows
            .iter()
            .map(Self::row_toml)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The `[[binding]]` row a user would add for `row`, as TOML.
    pub fn row_toml(row: &Binding) -> String {
        let mut s = format!("[[binding]]\ndim = \"{}\"\n", dim_name(row.dim));
        if row.return_type != ReturnType::Float {
            s.push_str(&format!("return = \"{}\"\n", row.return_type.name()));
        }
        for (isa, tp, sp) in [(Isa::Dxbc, "t", "s"), (Isa::Visa, "T", "S")] {
            if let Some(slot) = row.slot(isa) {
                s.push_str(&format!(
                    "{} = {{ texture = \"{tp}{}\"",
                    isa.name(),
                    slot.texture
                ));
                if let Some(smp) = slot.sampler {
                    s.push_str(&format!(", sampler = \"{sp}{smp}\""));
                }
                s.push_str(" }\n");
            }
        }
        if let Some(slot) = row.nvidia {
            s.push_str(&format!(
                "nvidia = {{ texture = \"{:#x}\" }}\n",
                slot.texture
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUE_EXAMPLE: &str = r#"
# One [[binding]] per texture (+ sampler) combination, with the name each ISA gives it.
[[binding]]
dim = "2d"         # 1d 2d 3d cube 1d_array 2d_array cube_array 2d_ms 2d_ms_array buffer
return = "float"   # optional (default float): float unorm snorm sint uint
dxbc = { texture = "t0", sampler = "s0" }
visa = { texture = "T6", sampler = "S0" }
nvidia = { texture = "0x6e" }
"#;

    #[test]
    fn parses_the_documented_form() {
        let b = Bindings::parse("bindings", ISSUE_EXAMPLE).unwrap();
        assert_eq!(b.rows.len(), 1);
        let r = &b.rows[0];
        assert_eq!(dim_name(r.dim), "2d");
        assert_eq!(
            r.dxbc,
            Some(Slot {
                texture: 0,
                sampler: Some(0)
            })
        );
        assert_eq!(
            r.visa,
            Some(Slot {
                texture: 6,
                sampler: Some(0)
            })
        );
        assert_eq!(
            r.nvidia,
            Some(Slot {
                texture: 0x6e,
                sampler: None
            })
        );
        assert_eq!(r.line, 3);
        assert_eq!(b.find(Isa::Visa, 6, Some(0)), Some(0));
        assert_eq!(b.find(Isa::Visa, 6, Some(1)), None);
        assert_eq!(b.find(Isa::Dxbc, 0, None), Some(0));
        assert!(Bindings::row_toml(r).contains("nvidia = { texture = \"0x6e\" }"));
    }

    fn err(text: &str) -> ConfigError {
        Bindings::parse("b.toml", text).unwrap_err()
    }

    #[test]
    fn malformed_entries_say_where() {
        let e = err("[[binding]]\ndim = \"4d\"\ndxbc = { texture = \"t0\" }\n");
        assert_eq!((e.line, e.column), (2, 7), "{e}");
        assert!(e.reason.contains("unknown dim `4d`"), "{e}");
        let e = err("[[binding]]\ndim = \"2d\"\ndxbc = { texture = \"r0\" }\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.reason.contains("`t<n>`"), "{e}");
        let e =
            err("[[binding]]\ndim = \"2d\"\nnvidia = { texture = \"0x6e\", sampler = \"s0\" }\n");
        assert!(e.reason.contains("one index"), "{e}");
        let e = err("[[binding]]\ndim = \"2d\"\ndxbc = { texture = \"t0\" }\ncolour = 1\n");
        assert!(e.reason.contains("colour"), "{e}");
        let e = err("[[binding]]\ndim = \"2d\"\n");
        assert!(e.reason.contains("names no ISA"), "{e}");
        let e = err("[[binding\n");
        assert_eq!(e.line, 1, "{e}");
        let e = err(
            "[[binding]]\ndim = \"2d\"\ndxbc = { texture = \"t0\", sampler = \"s0\" }\n\n[[binding]]\ndim = \"3d\"\ndxbc = { texture = \"t0\", sampler = \"s0\" }\n",
        );
        assert_eq!(e.line, 5, "{e}");
        assert!(
            e.reason.contains("conflicting") && e.reason.contains("line 1"),
            "{e}"
        );
    }
}
