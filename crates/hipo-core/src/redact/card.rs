//! Payment card numbers and their security codes.
//!
//! A card number is known by its shape, not by a word before it: 13 to
//! 19 digits grouped as cards print them (4-4-4-4, Amex's 4-6-5, Diners'
//! 4-6-4, or unbroken), starting with a network's prefix, and passing the
//! Luhn check every issued number passes (one random number in ten does).
//! The rule looks for it only on a line that names a card (`card`,
//! `Visa`, `Karte`, `tarjeta`, `카드`, `信用卡`, …), so an order or
//! tracking number elsewhere is never read as one. Numbers published for
//! testing payments (Stripe's `4242 4242 4242 4242`) are left as they are.

use super::rule::Rule;

/// The words that name a payment card, as the rules' anchors: the
/// prefilter runs the rules only on a text holding one.
const CARD_WORDS: &[&str] = &[
    "card",
    "visa",
    "amex",
    "maestro",
    "jcb",
    "unionpay",
    "diners",
    "cart",
    "tarjeta",
    "kart",
    "kaart",
    "карт",
    "卡",
    "カード",
    "카드",
    "कार्ड",
    "アメックス",
];

/// A card number on a line that names a card: the word, then the first
/// number after it on the line. (Counting the characters between them,
/// `{0,80}`, made the rules' set, which long texts go through, a seventh
/// slower to match.)
pub(super) const NUMBER: Rule = (
    concat!(
        r"(?:(?i-u:card|visa|amex|maestro|jcb|unionpay|diners|cart|tarjeta|kart|kaart)|(?i:карт)|卡|カード|카드|कार्ड|アメックス)",
        r"[^\n0-9]*(?:^|[^A-Za-z0-9_-])",
        r"([0-9]{4}(?:[ -]?[0-9]{4}){3}|[0-9]{4}[ -]?[0-9]{6}[ -]?[0-9]{4,5}|[0-9]{13,19})",
        r"(?:$|[^A-Za-z0-9_-])"
    ),
    1,
    Some(card_number),
    CARD_WORDS,
);

/// A card number before the word that names it, on one line: "I used
/// 4520366213056409 with expiry 12/26 … the wrong card".
pub(super) const NUMBER_BEFORE: Rule = (
    concat!(
        r"(?:^|[^A-Za-z0-9_-])",
        r"([0-9]{4}(?:[ -]?[0-9]{4}){3}|[0-9]{4}[ -]?[0-9]{6}[ -]?[0-9]{4,5}|[0-9]{13,19})",
        r"(?:$|[^A-Za-z0-9_-])[^\n]*?",
        r"(?:(?i-u:card|visa|amex|maestro|jcb|unionpay|diners|cart|tarjeta|kart|kaart)|(?i:карт)|卡|カード|카드|कार्ड|アメックス)"
    ),
    1,
    Some(card_number),
    CARD_WORDS,
);

/// A card's security code (CVC, CVV, CSC): three or four digits a few
/// words after its name, on a line that names a card or the code alone.
pub(super) const SECURITY_CODE: Rule = (
    r"(?:(?-u:\b)(?i-u:cvc2?|cvv2?|csc|cvn)(?-u:\b)|(?i:kartenprüfnummer|prüfziffer))[^0-9\n]{0,24}?(?-u:\b)([0-9]{3,4})(?:$|[^A-Za-z0-9_-])",
    1,
    None,
    &["cvc", "cvv", "csc", "cvn", "kartenprüfnummer", "prüfziffer"],
);

/// True if `v` (digits, maybe grouped by spaces or dashes) is a card
/// number: one kind of separator, a known network's prefix and length,
/// and not a number published for testing; an unbroken run of digits
/// must also pass the Luhn check (grouped as a card prints it, a number
/// on a line naming a card is one even when it was mistyped).
pub(super) fn card_number(v: &str) -> bool {
    let mut seps = v.bytes().filter(|b| !b.is_ascii_digit());
    if let Some(first) = seps.next()
        && seps.any(|b| b != first)
    {
        return false;
    }
    let digits: Vec<u8> = v
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    let grouped = v.len() > digits.len();
    network(&digits) && (grouped || luhn(&digits)) && !for_testing(&digits)
}

/// A known network's prefix at a length it issues: Visa, Mastercard
/// (51–55 and 2221–2720), Amex (34, 37), Discover (6011, 644–649, 65),
/// JCB (3528–3589), UnionPay (62), Diners (300–305, 36, 38, 39) and
/// Maestro (50, 56–69).
fn network(d: &[u8]) -> bool {
    let prefix = |n: usize| d.iter().take(n).fold(0u32, |a, &x| a * 10 + u32::from(x));
    let len = d.len();
    match d.first() {
        Some(4) => matches!(len, 13 | 16 | 19),
        Some(5) => {
            (51..=55).contains(&prefix(2)) && len == 16
                || matches!(prefix(2), 50 | 56..=58) && (12..=19).contains(&len)
        }
        Some(2) => (2221..=2720).contains(&prefix(4)) && len == 16,
        Some(3) => {
            matches!(prefix(2), 34 | 37) && len == 15
                || (3528..=3589).contains(&prefix(4)) && (16..=19).contains(&len)
                || ((300..=305).contains(&prefix(3)) || matches!(prefix(2), 36 | 38 | 39))
                    && (14..=19).contains(&len)
        }
        Some(6) => (16..=19).contains(&len),
        _ => false,
    }
}

/// The Luhn check digit holds.
fn luhn(d: &[u8]) -> bool {
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            let x = u32::from(x);
            if i % 2 == 1 {
                let y = x * 2;
                if y > 9 { y - 9 } else { y }
            } else {
                x
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Numbers the payment processors publish for testing (`4242 4242 4242
/// 4242`, `4111 1111 1111 1111`, `5555 5555 5555 4444`, …): their few
/// distinct digits give most of them away; the rest are listed.
fn for_testing(d: &[u8]) -> bool {
    let mut seen = [false; 10];
    for &x in d {
        seen[usize::from(x)] = true;
    }
    if seen.iter().filter(|&&s| s).count() <= 4 {
        return true;
    }
    let s: String = d.iter().map(|x| char::from(b'0' + x)).collect();
    [
        "378282246310005",
        "371449635398431",
        "378734493671000",
        "4012888888881881",
        "30569309025904",
        "38520000023237",
        "6011000990139424",
        "3566002020360505",
        "5200828282828210",
        "5105105105105100",
        "4000056655665556",
        "6200000000000005",
        "4917610000000000",
        "4000000000000077",
        // Adyen's.
        "5555341244441115",
        "4111112014267661",
        "4988438843884305",
        "6771798021000008",
        "5101180000000007",
        "2222400070000005",
        "370000000000002",
        "4166676667666746",
        "5577000055770004",
        "4917610000000000003",
    ]
    .contains(&s.as_str())
}

#[cfg(test)]
mod tests {
    use super::card_number;

    #[test]
    fn card_numbers_are_known_by_network_length_and_luhn() {
        for v in [
            "4716 5069 6252 5211",
            "5368-0125-9495-8993",
            "4263313572373307",
            "3448 809821 23473",
            "2221-7717-7026-7818",
        ] {
            assert!(card_number(v), "{v}");
        }
        for v in [
            "4716506962525212",    // unbroken, and Luhn fails
            "4716-5069 6252 5211", // mixed separators
            "9716506962525211",    // no network starts with 9
            "4242 4242 4242 4242", // Stripe's test card
            "4111111111111111",    // the classic test Visa
            "378282246310005",     // Amex's test card
            "1234 5678 9012 3456", // no network
        ] {
            assert!(!card_number(v), "{v}");
        }
    }
}
