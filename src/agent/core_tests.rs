//! Table tests of the loop core.
