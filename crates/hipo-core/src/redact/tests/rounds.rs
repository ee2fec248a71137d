//! The redaction table's rows from the eighth secrets round on (cards,
//! seed phrases, codes, tools' forms, passwords near a login, and what
//! says where a secret is): (input, expected output).

pub(in crate::redact) const CASES: &[(&str, &str)] = &[
    // Payment cards: on a line naming a card, by network, length and Luhn.
    (
        "User: use the Visa 4716 5069 6252 5211 exp 11/28 for the invoice",
        "User: use the Visa [REDACTED] exp 11/28 for the invoice",
    ),
    (
        "company AMEX for the AWS bill: 3448 809821 23473, CVC 862",
        "company AMEX for the AWS bill: [REDACTED], CVC [REDACTED]",
    ),
    ("- 信用卡号 5289245016284368", "- 信用卡号 [REDACTED]"),
    (
        "Stripe test card 4242 4242 4242 4242, any CVC",
        "Stripe test card 4242 4242 4242 4242, any CVC",
    ),
    (
        "card ending 4421 was charged for order 4716506962525212",
        "card ending 4421 was charged for order 4716506962525212",
    ),
    (
        "tracking 4716 5069 6252 5211 via DHL",
        "tracking 4716 5069 6252 5211 via DHL",
    ),
    // Seed phrases: twelve BIP-39 words in a row.
    (
        "write this down: october rebuild shoot velvet couple pistol auto squeeze awkward daughter inmate online",
        "write this down: [REDACTED]",
    ),
    (
        "MNEMONIC=\"test test test test test test test test test test test junk\"",
        "MNEMONIC=\"test test test test test test test test test test test junk\"",
    ),
    // What a code opens, said for the code.
    (
        "- 22:57 server room keypad: 2479# then wait for the green light",
        "- 22:57 server room keypad: [REDACTED] then wait for the green light",
    ),
    (
        "- shed padlock: 5517 (the brass one)",
        "- shed padlock: [REDACTED] (the brass one)",
    ),
    (
        "the keypad has 12 keys and a padlock icon",
        "the keypad has 12 keys and a padlock icon",
    ),
    // A bare code word gives digits, with a verb or a sign; without
    // one in languages that leave it out.
    (
        "the code for the server room is 7391 then hit the # key",
        "the code for the server room is [REDACTED] then hit the # key",
    ),
    (
        "User: il codice del cancello è 81545",
        "User: il codice del cancello è [REDACTED]",
    ),
    (
        "Assistant: Dükkanın alarm kodu 7554, not ettim.",
        "Assistant: Dükkanın alarm kodu [REDACTED], not ettim.",
    ),
    ("- 银行卡密码 116230", "- 银行卡密码 [REDACTED]"),
    ("- 체크카드 비밀번호 5300", "- 체크카드 비밀번호 [REDACTED]"),
    (
        "User: le digicode de l'immeuble c'est 5372A",
        "User: le digicode de l'immeuble c'est [REDACTED]",
    ),
    (
        "mysql failed with error code: 1045",
        "mysql failed with error code: 1045",
    ),
    (
        "the code is 4000 lines long now",
        "the code is 4000 lines long now",
    ),
    ("zip code is 94110", "zip code is 94110"),
    (
        "2. **\"The Bro Code\"** (2011) - a documentary",
        "2. **\"The Bro Code\"** (2011) - a documentary",
    ),
    (
        "the password 2024 policy is strict",
        "the password 2024 policy is strict",
    ),
    (
        "User: de toegangscode van de voordeur is 167829",
        "User: de toegangscode van de voordeur is [REDACTED]",
    ),
    (
        "User: apartman kapı şifresi 5567",
        "User: apartman kapı şifresi [REDACTED]",
    ),
    (
        "User: mi è arrivato l'OTP 688538, inseriscilo tu",
        "User: mi è arrivato l'OTP [REDACTED], inseriscilo tu",
    ),
    ("the OTP is 6 digits long", "the OTP is 6 digits long"),
    // A login's pair, made as passwords are.
    (
        "- Netflix hesabı: aile@yilmaz.com.tr / Oyster.Hammock8528",
        "- Netflix hesabı: aile@yilmaz.com.tr / [REDACTED]",
    ),
    (
        "the build boxes run Linux / Windows10 and macOS",
        "the build boxes run Linux / Windows10 and macOS",
    ),
    // What a code opens, for its digits.
    ("- the side gate is 7360#", "- the side gate is [REDACTED]"),
    (
        "- hotel room safe set to 988205",
        "- hotel room safe set to [REDACTED]",
    ),
    (
        "- Fahrradschloss Emil: 7037",
        "- Fahrradschloss Emil: [REDACTED]",
    ),
    (
        "- Alarmanlage Atelier: 0192 + Taste AUS",
        "- Alarmanlage Atelier: [REDACTED] + Taste AUS",
    ),
    (
        "alarm: 0630, then the school run",
        "alarm: 0630, then the school run",
    ),
    (
        "the gate is 4711 ft from the road",
        "the gate is 4711 ft from the road",
    ),
    ("the lock timeout is 3000 ms", "the lock timeout is 3000 ms"),
    // Tools' own forms.
    (
        "gpg --batch --passphrase 'sunny needle valley maple' --decrypt s.tar.gpg",
        "gpg --batch --passphrase '[REDACTED]' --decrypt s.tar.gpg",
    ),
    (
        "ssh-keygen -p -f ~/.ssh/id_rsa -P 'violet velvet basil' -N ''",
        "ssh-keygen -p -f ~/.ssh/id_rsa -P '[REDACTED]' -N ''",
    ),
    (
        "gpg --passphrase-file ~/.gnupg/pass.txt --decrypt x.gpg",
        "gpg --passphrase-file ~/.gnupg/pass.txt --decrypt x.gpg",
    ),
    (
        "jdbc:oracle:thin:REPORTING/GI6pLEWP3C3kGD@//ora-prd-01:1521/ORCLPRD",
        "jdbc:oracle:thin:REPORTING/[REDACTED]@//ora-prd-01:1521/ORCLPRD",
    ),
    (
        "- TOTP seed for the ops account (bot): 6U3NIBSEXAU7DOFX7LPG2T3AWJUTBGI7",
        "- TOTP seed for the ops account (bot): [REDACTED]",
    ),
    (
        "OTP: SMS or app, see the wiki",
        "OTP: SMS or app, see the wiki",
    ),
    (
        "curl -b \"_gitlab_session=778290c1ca35ca259a00fd0e8bfeada7\" https://gitlab.x/api",
        "curl -b \"_gitlab_session=[REDACTED]\" https://gitlab.x/api",
    ),
    // Security questions in other languages, gift cards, backup codes.
    (
        "- 09:45 Sicherheitsfrage Sparkasse (Name des ersten Haustiers): Sznurek",
        "- 09:45 Sicherheitsfrage Sparkasse (Name des ersten Haustiers): [REDACTED]",
    ),
    (
        "User: j'ai mis une fausse réponse à la question secrète, elle est dans Bitwarden",
        "User: j'ai mis une fausse réponse à la question secrète, elle est dans Bitwarden",
    ),
    (
        "- Amazon gift card for the intern: YCY8-7BJV-LJ9C",
        "- Amazon gift card for the intern: [REDACTED]",
    ),
    (
        "- 15:23 Discord yedek kodları 1Password'de duruyor",
        "- 15:23 Discord yedek kodları 1Password'de duruyor",
    ),
    // A wallet's keys, a card before its word, Notion, nmcli.
    (
        "- 16:30 秘密鍵(ETH): 0xb4245528dcaeab9a93c2b173465309f52c4e6c265f8086f322a98ee7333f9fa3",
        "- 16:30 秘密鍵(ETH): [REDACTED]",
    ),
    (
        "tx 0xb4245528dcaeab9a93c2b173465309f52c4e6c265f8086f322a98ee7333f9fa3 confirmed",
        "tx 0xb4245528dcaeab9a93c2b173465309f52c4e6c265f8086f322a98ee7333f9fa3 confirmed",
    ),
    (
        "I used 4520366213056409 with expiry 12/26, the wrong card?",
        "I used [REDACTED] with expiry 12/26, the wrong card?",
    ),
    (
        "for the Adyen sandbox use 5555 3412 4444 1115, their public test card",
        "for the Adyen sandbox use 5555 3412 4444 1115, their public test card",
    ),
    (
        "$ nmcli dev wifi connect \"Studio-2.4\" password \"yesil elma 2166\"",
        "$ nmcli dev wifi connect \"Studio-2.4\" password \"[REDACTED]\"",
    ),
    // What says where a secret is, not the secret.
    (
        "APPLE_SHARED_SECRET=${APPLE_SHARED_SECRET:?missing}",
        "APPLE_SHARED_SECRET=${APPLE_SHARED_SECRET:?missing}",
    ),
    (
        "$ openssl pkcs12 -in dist.p12 -nodes -passin env:P12_PASSWORD | openssl x509 -noout",
        "$ openssl pkcs12 -in dist.p12 -nodes -passin env:P12_PASSWORD | openssl x509 -noout",
    ),
    (
        "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD=@keychain:AC_PASSWORD",
        "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD=@keychain:AC_PASSWORD",
    ),
    (
        "- app-specific pw for altool: xxxx-xxxx-xxxx-xxxx (regenerate it)",
        "- app-specific pw for altool: xxxx-xxxx-xxxx-xxxx (regenerate it)",
    ),
    (
        "JWT_SECRET=changeme-in-production",
        "JWT_SECRET=changeme-in-production",
    ),
    (
        "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n<redacted>\\n-----END PRIVATE KEY-----\\n\",",
        "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n<redacted>\\n-----END PRIVATE KEY-----\\n\",",
    ),
    (
        "deploy key (public half): ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIj/u8devCC3WeucSlY9t1g8bWmeMBte9E1rq4AHOtcya deploy@forge",
        "deploy key (public half): ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIj/u8devCC3WeucSlY9t1g8bWmeMBte9E1rq4AHOtcya deploy@forge",
    ),
    (
        "- Google backup codes printed 2024-09-27, 10 codes, in the safe",
        "- Google backup codes printed 2024-09-27, 10 codes, in the safe",
    ),
    // A password near a login's words, with no word for it.
    (
        "User: the Canva login is my studio email and LipowaPumpkin16!",
        "User: the Canva login is my studio email and [REDACTED]",
    ),
    (
        "SSID Acme-Corp-5G (WPA3-Enterprise, log in with your AD account)",
        "SSID Acme-Corp-5G (WPA3-Enterprise, log in with your AD account)",
    ),
    (
        "- Stripe Connect account for the Lisbon merchant: acct_1R5qDDGj9ylLgq2k",
        "- Stripe Connect account for the Lisbon merchant: acct_1R5qDDGj9ylLgq2k",
    ),
    (
        "logged into my iPhone15Pro account with Face ID",
        "logged into my iPhone15Pro account with Face ID",
    ),
    (
        "  'password' => 'PFD0EqX_Uoslq8',   (nextcloud config.php)",
        "  'password' => '[REDACTED]',   (nextcloud config.php)",
    ),
    (
        "- deurcode vriezerruimte: 52412",
        "- deurcode vriezerruimte: [REDACTED]",
    ),
    // The eleventh round: formats, cookies, a code's place before an arrow.
    (
        "- AWS keys for the backup bucket: AKIATSYRLQGT6GZ5XOYA / Yx46Qb8iaB15392zf7V8XgVAGaTkRcuMwTlUe+Pv",
        "- AWS keys for the backup bucket: [REDACTED] / [REDACTED]",
    ),
    (
        "- Netlify PAT for the landing deploys: nfp_9Gfz00WKQ5Mgyi57ApGyBzPa4KHnAk1WUU4A",
        "- Netlify PAT for the landing deploys: [REDACTED]",
    ),
    (
        "Cookie: jupyterhub-session-id=cbf96c523fd7ad9ec5383cdc851018cc",
        "Cookie: jupyterhub-session-id=[REDACTED]",
    ),
    (
        "- código da porta da sala dos freezers → 660012",
        "- código da porta da sala dos freezers → [REDACTED]",
    ),
    (
        "SESSION_TIMEOUT=3600 and the session cookie name is sid",
        "SESSION_TIMEOUT=3600 and the session cookie name is sid",
    ),
];
