//! placeholder, replaced by the block model
