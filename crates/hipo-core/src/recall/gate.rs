//! The gate: whether a prompt gets a pack at all.
//!
//! A pack is given only when a passage is evidence for the prompt:
//! relevance at the floor (lower when the memory holds the prompt well
//! beyond chance, [`super::background`], or a little beyond chance when
//! the prompt points back at the past, [`super::backref`]) and a share of
//! the prompt held ([`super::vocab`]). docs/search.md, "The gate", says
//! what each test is for; docs/retrieval-log.md, "Recall", how each
//! constant was chosen.

use super::{DEFAULT_FLOOR, background, vocab};
use crate::search::Hit;

/// The share of the prompt's weight (its terms' IDF) the passage that
/// opens the pack must hold, besides reaching the floor. The prompt's
/// plain words the memory has never seen are counted in its weight, at
/// the IDF of a word no section holds ([`vocab`]); code-like strings
/// (markers, file names, identifiers) are not. A prompt about something
/// else shares a word or two with some passage, and in a young memory,
/// where every word is rare, those can reach the floor; what gives it away
/// is the rest of the prompt, which the memory does not hold. On the
/// 46-section excerpt of MemAware 67 of 120 long unrelated prompts
/// reached the floor, their best passage holding a median 0.13 of the
/// prompt's weight against 0.29 to 0.42 for questions the memory answers.
pub const MIN_COVERAGE: f32 = 0.2;
/// How far beyond chance the share of the prompt the memory holds must be
/// for the gate to lower the relevance floor ([`BEYOND_CHANCE_FLOOR`];
/// [`background`]): the memory holds this much more of the prompt's
/// weight than a memory of its size would by chance. Only young memories
/// get there (a large one holds nearly every word by chance); a passage
/// must still hold [`MIN_COVERAGE`] of the prompt.
pub const BEYOND_CHANCE: f32 = 0.6;
/// How far beyond chance the memory must hold a prompt that points back at
/// the shared past ("what did we do last time", [`super::backref`]) for
/// the gate to lower the floor: the user says it was worked out before,
/// and the memory holds the prompt's subject more than by chance. The cue
/// alone is not enough: three months of an assistant's chats about
/// everything (MemAware) hold something for most prompts, and at the
/// lower floor it let 31 of 60 such prompts about something else
/// through, against 7 at the floor (docs/retrieval-log.md, "A prompt that
/// points back").
pub const BEYOND_CHANCE_POINTING_BACK: f32 = 0.2;
/// The relevance floor when the memory holds the prompt beyond chance, at
/// the default floor; a floor set in a config moves it in proportion, so
/// a project that raises its floor raises this one with it. A young
/// memory's answers in the user's own words score 0.10 to 0.17 there; a
/// question about the project's stack that the memory does not record
/// ("how does a partial index work in Postgres", asked of a memory that
/// names Postgres) holds the stack's words beyond chance as well, and its
/// best passage, matching one or two of them, scores under 0.10
/// (docs/retrieval-log.md, "Held beyond chance").
pub const BEYOND_CHANCE_FLOOR: f32 = 0.1;

/// How much of a prompt a memory holds: see [`super::Pack::held`] and
/// [`super::Pack::beyond_chance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Held {
    pub share: f32,
    pub beyond_chance: f32,
}

/// What a passage must show to be evidence for a prompt.
pub(super) struct Gate {
    pub(super) floor: f32,
    pub(super) held: Held,
    /// The prompt points back at the shared past ([`super::backref`]).
    pub(super) refers_back: bool,
}

impl Gate {
    /// Whether a hit is evidence enough to give a pack: relevance at the
    /// floor (or at [`BEYOND_CHANCE_FLOOR`], in proportion to the floor,
    /// when the memory holds the prompt well beyond chance,
    /// [`BEYOND_CHANCE`], or beyond [`BEYOND_CHANCE_POINTING_BACK`] when
    /// the prompt points back at the shared past, [`super::backref`]), and
    /// [`MIN_COVERAGE`] of the prompt held, the prompt's plain words the
    /// memory has never seen counted in ([`vocab`]). A floor of 0 takes
    /// anything (a pack asked for explicitly).
    pub(super) fn reaches(&self, hit: &Hit) -> bool {
        self.floor <= 0.0
            || (hit.relevance >= self.relevance_floor()
                && hit.coverage * self.held.share >= MIN_COVERAGE)
    }

    /// The floor, or its lower form for a prompt the memory holds well
    /// beyond chance or one that points back at the shared past.
    fn relevance_floor(&self) -> f32 {
        let beyond = self.held.beyond_chance;
        if beyond >= BEYOND_CHANCE || (self.refers_back && beyond >= BEYOND_CHANCE_POINTING_BACK) {
            self.floor * (BEYOND_CHANCE_FLOOR / DEFAULT_FLOOR)
        } else {
            self.floor
        }
    }
}

/// How much of `prompt` the memory in `index` holds: the share of its
/// weight ([`vocab::share_held`]) and that share's excess over chance
/// ([`background::held_beyond_chance`]).
pub(crate) fn held(index: &crate::index::SearchIndex, prompt: &str) -> Held {
    Held {
        share: vocab::share_held(index, prompt),
        beyond_chance: background::held_beyond_chance(index, prompt),
    }
}
