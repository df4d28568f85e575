//! The DX vector operands of a texture instruction (`Codec::register_groups`): the address
//! (the coordinates, the array layer as its last component, and for `ld` the mip level after
//! them, seeds/dx-sm4-sample.md and research/dxbc.md), each gradient vector, `gather4_po`'s
//! offset vector, and the destination — each one register, its components in any order (the swizzle or write mask
//! picks them).

use crate::ir::{Lod, TexInstr, TexOp};
use crate::isa::{GroupLayout, Operand, RegGroup};

/// The register groups of `t` as DX reads and writes it.
pub fn register_groups(t: &TexInstr) -> Vec<RegGroup> {
    let one = |name, operands: Vec<Operand>| RegGroup {
        name,
        operands,
        layout: GroupLayout::OneRegister,
    };
    let mut groups = Vec::new();
    let mut address: Vec<Operand> = (0..t.coord.len() as u8).map(Operand::Coord).collect();
    if t.array_index.is_some() {
        address.push(Operand::ArrayIndex);
    }
    if t.op == TexOp::Fetch && t.sample_index.is_none() && matches!(t.lod, Lod::Level(_)) {
        address.push(Operand::Lod);
    }
    if !address.is_empty() && t.op != TexOp::QuerySize {
        groups.push(one("address", address));
    }
    if let Lod::Grad { dx, dy } = &t.lod {
        groups.push(one(
            "ddx",
            (0..dx.len() as u8).map(Operand::GradDx).collect(),
        ));
        groups.push(one(
            "ddy",
            (0..dy.len() as u8).map(Operand::GradDy).collect(),
        ));
    }
    if let crate::ir::Offset::Dynamic(v) = &t.offset {
        groups.push(one(
            "offset",
            (0..v.len() as u8).map(Operand::Offset).collect(),
        ));
    }
    let dst: Vec<Operand> = (0..4u8)
        .filter(|&c| t.dst[c as usize].is_some())
        .map(Operand::Dst)
        .collect();
    if !dst.is_empty() {
        groups.push(one("dst", dst));
    }
    groups
}
