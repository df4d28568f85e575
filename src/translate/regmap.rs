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
