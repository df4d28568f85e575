//! Backend: a whole Visa program built from target-ready IR.

use crate::error::{Error, Unsupported};
use crate::ir::{Isa, Program};
use crate::isa::EmitOptions;

/// Builds a whole program from target-ready IR.
pub fn emit_program(ir: &Program, options: &EmitOptions) -> Result<Program, Error> {
    let _ = (ir, options);
    Err(Error::Unsupported(Unsupported::new(
        "a whole program",
        ir.isa,
        Isa::Visa,
        "the backend is being built",
    )))
}
