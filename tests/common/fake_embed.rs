//! `/api/embed` for the fake Ollama server: deterministic vectors that
//! know a few synonyms, so a test can ask for a car and find the section
//! about an automobile, which BM25 cannot.
#![allow(dead_code)]

/// Words that mean the same, each group one dimension of the vector.
const CONCEPTS: &[&[&str]] = &[
    &["car", "automobile", "vehicle", "sedan"],
    &["dog", "puppy", "canine", "hound"],
    &["money", "budget", "cash", "savings"],
    &["music", "guitar", "piano", "song"],
];
/// Dimensions of the fake model: the concepts, then hashed words.
pub const DIM: usize = 16;

/// The vector of `text`: one unit per concept word, a little per other
/// word (hashed), so unrelated texts are not all equal.
pub fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        match CONCEPTS.iter().position(|g| g.contains(&w.as_str())) {
            Some(i) => v[i] += 1.0,
            None => {
                let h = w
                    .bytes()
                    .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
                v[CONCEPTS.len() + (h as usize) % (DIM - CONCEPTS.len())] += 0.05;
            }
        }
    }
    v
}

/// Ollama's answer to an embed request for a model it has.
pub fn answer(req: &serde_json::Value) -> String {
    let inputs: Vec<String> = match &req["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect(),
        _ => Vec::new(),
    };
    let embeddings: Vec<Vec<f32>> = inputs.iter().map(|t| vector(t)).collect();
    serde_json::json!({
        "model": req["model"],
        "embeddings": embeddings,
    })
    .to_string()
}

/// [`answer`] with every vector doubled in length: another model.
pub fn answer_wide(req: &serde_json::Value) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&answer(req)).unwrap_or_default();
    if let Some(all) = v["embeddings"].as_array_mut() {
        for e in all {
            if let Some(xs) = e.as_array_mut() {
                let copy = xs.clone();
                xs.extend(copy);
            }
        }
    }
    v.to_string()
}

/// Ollama's 404 for a model it does not have.
pub fn not_found(req: &serde_json::Value) -> String {
    format!(
        r#"{{"error":"model \"{}\" not found, try pulling it first"}}"#,
        req["model"].as_str().unwrap_or("")
    )
}
