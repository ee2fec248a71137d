//! The shape of a summary: the sections every node's body has, in order.
//! The prompt asks for them, a structured answer's lists fill them, and
//! the mechanical fallback writes them.

/// The sections every summary must have.
pub const REQUIRED_SECTIONS: [&str; 5] = [
    "## Topics",
    "## Key Decisions",
    "## Tasks Completed",
    "## Lessons Learned",
    "## Open Items",
];
