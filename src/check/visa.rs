//! The Intel vISA model (being written).
use crate::check::{Error, Execution, InitialFile};
use crate::ir::Isa;
use crate::translate::bindings::Bindings;

/// Runs the model over a whole program.
pub fn run(_program: &[u8], _init: InitialFile, _bindings: &Bindings) -> Result<Execution, Error> {
    Err(Error::model(
        Isa::Visa,
        "input",
        "the vISA model is not written yet",
    ))
}
