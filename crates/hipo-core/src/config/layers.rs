//! Settings that come from several places, merged by one rule: the config
//! file, then the environment, then flags; a later layer wins key by key,
//! and a key no layer sets takes its default when the settings are
//! resolved.
//!
//! A layer is a settings struct with every key optional, declared once with
//! [`layer!`] (the LLM's [`super::LlmLayer`], the embeddings'
//! `embed::EmbedLayer`): adding a key is one line there, and its merge
//! comes with it. Each `resolve` (`llm::resolve`, `embed::resolve`) stacks
//! its layers with [`merged`], then applies the defaults and checks the
//! result, so the precedence is written here and nowhere else.
//!
//! Where the layers come from:
//! - **config**: `hipocampus.config.json` (`llm.*`; `search.embed.model`,
//!   and `llm.host` for the embeddings' server), read by [`super::Config`];
//! - **environment** and **flags**: the binary's arguments. Each flag names
//!   its environment variable (`--model` / `HIPO_MODEL`, `--host` /
//!   `OLLAMA_HOST`…, see `docs/local-models.md`), and the argument parser
//!   gives a flag precedence over its variable, so the front end hands the
//!   engine the two as one layer above the config's;
//! - a caller may add one more on top: an MCP tool call's `mode`, or
//!   `hipo llm check`'s backend.

/// One layer of settings: every key optional.
pub trait Layer: Default {
    /// This layer over `below`: each key this one sets wins.
    fn over(self, below: Self) -> Self;
}

/// The layers stacked, lowest first (config, environment, flags): each key
/// as the last layer that sets it says.
pub fn merged<L: Layer>(lowest_first: impl IntoIterator<Item = L>) -> L {
    lowest_first
        .into_iter()
        .fold(L::default(), |below, layer| layer.over(below))
}

/// Declares a layer: a struct whose fields are written as their type and
/// become `Option`s, with [`Layer::over`] for it. Attributes pass through
/// (serde's, for a layer the config file is read into).
macro_rules! layer {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$field_meta:meta])* pub $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$field_meta])* pub $field: Option<$ty>, )*
        }

        impl $crate::config::layers::Layer for $name {
            fn over(self, below: $name) -> $name {
                $name { $( $field: self.$field.or(below.$field), )* }
            }
        }
    };
}
pub(crate) use layer;

/// For a key the config file may leave out but not set to `null` (a
/// number, a flag): read as the value itself, so `null` is refused with
/// the message it always had.
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    layer! {
        #[derive(Debug, Default, PartialEq)]
        pub struct Two {
            pub a: u8,
            pub b: String,
        }
    }

    #[test]
    fn a_later_layer_wins_key_by_key() {
        let config = Two {
            a: Some(1),
            b: Some("config".into()),
        };
        let env = Two {
            a: None,
            b: Some("env".into()),
        };
        let flags = Two {
            a: Some(3),
            b: None,
        };
        assert_eq!(
            merged([config, env, flags]),
            Two {
                a: Some(3),
                b: Some("env".into())
            }
        );
        assert_eq!(merged(Vec::<Two>::new()), Two::default());
    }
}
