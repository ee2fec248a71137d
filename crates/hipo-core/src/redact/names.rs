//! What a secret word names (a password, a PIN or a code, a security
//! question's answer, a key), which says what its value may look like
//! ([`super::value`]): the words of each kind in the languages the
//! scanner reads ([`super::said`]), which are also its prefilter's
//! anchors.

/// What a secret word names, which says what else its value may look
/// like: people make passwords of words ("velvet-thunder", "hazel-mortar-31",
/// "ParisInTheSpring", a phrase in quotes) and PINs and codes of digits,
/// where a token or an API key is random.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Names {
    /// password, passphrase, pw, pass, the Wi-Fi, and their translations.
    Password,
    /// PIN, passcode, a backup or door code: digits.
    Pin,
    /// token, secret, key, credentials: random, or many words joined.
    Other,
    /// A security question's answer, a memorable word: a few plain words.
    Answer,
    /// A bare "code" (`code`, `codice`, `código`, `kodu`, `코드`): digits
    /// given with a verb or a sign, as a door's or a phone's code is; a
    /// word for what the code is of says when it is not a secret
    /// ([`NOT_SECRET_CODES`]).
    Code,
}

/// Words a secret word holds when it names a security question's answer
/// (lower case): what [`Names::Answer`] names; also anchors of
/// [`super::said`]'s prefilter.
pub(super) const ANSWER_WORDS: &[&str] = &[
    "answer",
    "memorable",
    "maiden",
    "security q",
    "sicherheitsfrage",
    "pytanie",
    "beveiligingsvraag",
    "domanda",
    "pregunta",
    "sorusu",
    "question",
    "pergunta",
    "вопрос",
    "秘密の質問",
    "安全问题",
    "질문",
];

/// The bare code words (lower case): what [`Names::Code`] names.
pub(super) const CODE_WORDS: &[&str] = &[
    "code",
    "codes",
    "codice",
    "código",
    "codigo",
    "kod",
    "kodu",
    "코드",
    "कोड",
];

/// What a code opens, said for its code ("the side gate is 7360#",
/// "hotel room safe set to 988205"): English's words, which must give
/// their digits with a verb or a sign, as a bare "code" does.
pub(super) const OPENS_ENGLISH: &[&str] = &[
    "door", "gate", "safe", "alarm", "locker", "lock", "keybox", "barrier", "garage",
];

/// The same in other languages, whose digits may follow right after the
/// word ("Fahrradschloss Emil: 7037", "金庫の番号 2476").
pub(super) const OPENS: &[&str] = &[
    "tür",
    "tresor",
    "alarmanlage",
    "fahrradschloss",
    "kettenschloss",
    "zahlenschloss",
    "schloss",
    "deur",
    "voordeur",
    "buitendeur",
    "achterdeur",
    "poort",
    "kluis",
    "fietsslot",
    "kettingslot",
    "cijferslot",
    "kłódka",
    "kłódki",
    "sejf",
    "brama",
    "furtka",
    "cassaforte",
    "cancello",
    "lucchetto",
    "porta",
    "portão",
    "cofre",
    "cadeado",
    "caja fuerte",
    "candado",
    "puerta",
    "porte",
    "portail",
    "coffre",
    "cadenas",
    "kilit",
    "金庫",
    "オートロック",
    "警報",
];

/// Words that, just before a bare code word, say the code is public
/// (`error code: 1045`, `zip code 94110`, `source code`).
pub(super) const NOT_SECRET_CODES: &[&str] = &[
    "error",
    "exit",
    "status",
    "return",
    "response",
    "reason",
    "result",
    "fault",
    "zip",
    "postal",
    "post",
    "area",
    "country",
    "dial",
    "region",
    "http",
    "promo",
    "discount",
    "coupon",
    "product",
    "source",
    "qr",
    "bar",
    "tracking",
    "reference",
    "ref",
    "article",
    "item",
    "sort",
    "swift",
    "bic",
    "iso",
    "currency",
    "airport",
    "language",
    "color",
    "colour",
    "hex",
    "ascii",
    "unicode",
    "char",
    "op",
    "machine",
    "byte",
    "diagnostic",
    "obd",
    "dtc",
    "tax",
    "vat",
    "icd",
    "cost",
    "budget",
    "account",
    "department",
    "invoice",
    "order",
    "booking",
    "confirmation",
    "reservation",
    "flight",
    "shipping",
    "customs",
    "station",
    "stock",
    "class",
    "course",
    "project",
    "sample",
    "example",
    "test",
    "python",
    "rust",
    "java",
];

/// The words that name a PIN or a code (lower case), as the secret words
/// of [`super::said`] match them; also anchors of its prefilter.
pub(super) const PIN_WORDS: &[&str] = &[
    "pincode",
    "türcode",
    "код",
    "pin",
    "passcode",
    "code",
    "combo",
    "combination",
    "puk",
    "código",
    "codigo",
    "digicode",
    "codice",
    "暗証番号",
    "验证码",
    "驗證碼",
    "認証コード",
    "確認コード",
    "인증",
    "kod",
    "doğrulama",
    "kode",
    "رمز",
    "ओटीपी",
    "keypad",
    "lockbox",
    "keysafe",
    "key safe",
    "padlock",
    "bike lock",
    "bikelock",
    "combo lock",
    "combolock",
    "combination lock",
    "combinationlock",
    "otp",
    "mpin",
    "combinazione",
    "combinação",
    "combinacao",
    "combinación",
    "combinacion",
    "एमपिन",
    "tan",
    "gift card",
    "giftcard",
    "gift_card",
    "gift-card",
    "kody zapasowe",
    "yedek kod",
    "herstelsleutel",
    "バックアップコード",
    "恢复码",
    "恢復碼",
];

/// English's short forms of a password's name, the first of
/// [`PASSWORD_WORDS`].
pub(super) const ENGLISH_PASSWORD_WORDS: &[&str] = &["pass", "pw", "pwd"];

/// The words that name a password (lower case): English's short forms
/// and the names in the other languages the scanner reads; also anchors
/// of its prefilter.
pub(super) const PASSWORD_WORDS: &[&str] = &[
    "pass",
    "pw",
    "pwd",
    "passwort",
    "lösenord",
    "heslo",
    "kata sandi",
    "salasana",
    "parola",
    "κωδικός",
    "كلمة",
    "הסיסמה",
    "סיסמ",
    "पासवर्ड",
    "fraza",
    "clave",
    "şifre",
    "sifre",
    "mật khẩu",
    "암호",
    "kennwort",
    "mot de passe",
    "mdp",
    "contraseña",
    "senha",
    "wachtwoord",
    "hasło",
    "haslo",
    "пароль",
    "비밀번호",
    "패스워드",
    "パスワード",
    "密码",
    "密碼",
    "口令",
];

/// What the secret word `word` (as [`super::said`]'s keyword matched it)
/// names.
pub(super) fn names(word: &str) -> Names {
    let w = word.to_lowercase();
    if CODE_WORDS.contains(&w.as_str())
        || OPENS_ENGLISH.contains(&w.as_str())
        || OPENS.contains(&w.as_str())
    {
        return Names::Code;
    }
    if ANSWER_WORDS.iter().any(|a| w.contains(a)) {
        Names::Answer
    } else if PIN_WORDS.iter().any(|p| {
        w.starts_with(p) || w.strip_suffix('s').is_some_and(|x| x.ends_with(p)) || w.ends_with(p)
    }) {
        Names::Pin
    } else if PASSWORD_WORDS.iter().any(|p| w.starts_with(p))
        || w.starts_with("pas")
        || w.contains("phrase")
        || w.contains("seed")
        || w == "비번"
    {
        Names::Password
    } else {
        Names::Other
    }
}

/// A bare "key" in the languages the scanner reads (lower case).
pub(super) const KEY_WORDS: &[&str] = &[
    "key",
    "keys",
    "schlüssel",
    "clé",
    "cle",
    "chiave",
    "sleutel",
    "ключ",
];

/// True if `word` is a bare "key", with nothing to say what key.
pub(super) fn is_bare_key(word: &str) -> bool {
    let w = word
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    KEY_WORDS.iter().any(|k| w == *k)
}
