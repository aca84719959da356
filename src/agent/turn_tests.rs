//! Whole turns in process.
