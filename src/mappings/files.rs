//! `mappings/files.toml`: the file names of batch mode per ISA — which files a directory
//! input gives, and the extension of each output.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::Isa;
use crate::isa::hex::{parse_hex_words, HexUnit};
use crate::Form;

/// A container format told by its first bytes.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Container {
    /// The magic, as hex digits.
    magic: String,
    /// The extension of an output that starts with it.
    extension: String,
}

/// The file names of one ISA.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileNames {
    /// The extension of a text output (a listing, a kernel).
    pub text: String,
    /// The extension of a binary output that is no container.
    pub binary: String,
    /// The extensions `disasm` takes from a directory.
    pub disasm_inputs: Vec<String>,
    /// The extensions `translate` takes from a directory.
    pub translate_inputs: Vec<String>,
    containers: Vec<Container>,
}

impl FileNames {
    /// The extension of an output of this ISA in `form` whose bytes are `output`: a binary
    /// starting with a container's magic takes the container's extension.
    pub fn output_extension(&self, form: Form, output: &[u8]) -> &str {
        match form {
            Form::Text => &self.text,
            // A bare token stream (DX `--emit tokens`) is the bare encoding.
            Form::Tokens => &self.binary,
            Form::Binary => self
                .containers
                .iter()
                .find(|c| {
                    let magic = parse_hex_words(&[c.magic.as_str()], HexUnit::Bytes)
                        .expect("mappings/files.toml: a magic is hex bytes");
                    output.starts_with(&magic)
                })
                .map_or(&self.binary, |c| &c.extension),
        }
    }

    /// Every extension a binary output may take: the bare encoding's, then the containers'.
    pub fn binary_extensions(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.binary.as_str()).chain(self.containers.iter().map(|c| &*c.extension))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    visa: FileNames,
    dxbc: FileNames,
    nvidia: FileNames,
}

fn file() -> &'static File {
    static FILE: OnceLock<File> = OnceLock::new();
    FILE.get_or_init(|| super::parse_table("files.toml", include_str!("../../mappings/files.toml")))
}

/// The file names of `isa`.
pub fn names(isa: Isa) -> &'static FileNames {
    let f = file();
    match isa {
        Isa::Visa => &f.visa,
        Isa::Dxbc => &f.dxbc,
        Isa::Nvidia => &f.nvidia,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_named_by_form_and_container() {
        let nv = names(Isa::Nvidia);
        assert_eq!(nv.output_extension(Form::Text, b"\x7fELF"), "sass");
        assert_eq!(nv.output_extension(Form::Binary, b"\x7fELF\x02"), "cubin");
        assert_eq!(nv.output_extension(Form::Binary, &[0u8; 32]), "bin");
        let dx = names(Isa::Dxbc);
        assert_eq!(dx.output_extension(Form::Binary, b"DXBC...."), "dxbc");
        assert_eq!(dx.output_extension(Form::Binary, &[0x50, 0, 5, 0]), "bin");
        assert_eq!(
            names(Isa::Visa).output_extension(Form::Text, b""),
            "visaasm"
        );
    }

    /// Every output extension is one a directory input of the same ISA gives back to
    /// `translate`, so a batch's outputs can be the next batch's inputs.
    #[test]
    fn outputs_are_inputs_again() {
        for isa in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
            let n = names(isa);
            for ext in std::iter::once(n.text.as_str()).chain(n.binary_extensions()) {
                assert!(
                    n.translate_inputs.iter().any(|e| e == ext),
                    "{}: .{ext} is not a translate input",
                    isa.name()
                );
            }
        }
    }
}
