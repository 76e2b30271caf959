// SPDX-License-Identifier: GPL-3.0
pragma solidity 0.8.28;

/// @title IdwalletNames
/// @notice The canonical user id that an ENS name `<username labels>.<provider>.<domain>` stands for, read
///         from the name's DNS encoding (ENSIP-10), for the names whose wallet is derived on chain: every
///         label below the domain plain ASCII `[a-z0-9-]` and the provider built in. The username rules are
///         the gateway's (gateway/ens/names.ts, gateway/identity/usernameRules.ts); a test checks that both
///         give the same address for every name.
/// @dev Any other name is left to the gateway (`onChain` false). A name derived here that breaks its
///      provider's rule stands for nobody (`onChain` true, empty user id).
library IdwalletNames {
    enum Provider {
        None,
        Tel,
        Email,
        Github,
        Twitter,
        X,
        Discord,
        Telegram,
        Google,
        Apple
    }

    /// @dev The gateway refuses longer names (gateway/ens/dnsName.ts).
    uint256 private constant MAX_NAME_BYTES = 1024;
    /// @dev RFC 5321 §4.5.3.1.3: a path is at most 256 octets with its angle brackets.
    uint256 private constant MAX_EMAIL_BYTES = 254;

    /// @notice The canonical user id (`<provider>:<username>`) that `name` stands for.
    /// @param name DNS wire-format name: length-prefixed labels, then a zero byte.
    /// @param domainNode ENSIP-1 namehash of the domain the names live under.
    /// @return onChain False when the gateway must answer: a malformed name, one outside the domain, a label
    ///         with a byte outside [a-z0-9-], or a provider that is not built in.
    /// @return userId The canonical user id; empty when the name stands for nobody.
    function userIdOf(bytes calldata name, bytes32 domainNode) internal pure returns (bool onChain, bytes memory userId) {
        uint256[] memory starts = _labelStarts(name);
        uint256 domainLabel = _domainLabel(name, starts, domainNode);
        // No provider label: the name is the domain itself, or outside it.
        if (domainLabel == 0) return (false, "");
        uint256 providerLabel = domainLabel - 1;
        for (uint256 i = 0; i <= providerLabel; ++i) {
            if (!_isPlainLabel(_label(name, starts[i]))) return (false, "");
        }
        bytes calldata provider = _label(name, starts[providerLabel]);
        Provider kind = _provider(provider);
        if (kind == Provider.None) return (false, "");
        if (providerLabel == 0 || _hasLabelExtension(name, starts, providerLabel)) return (true, "");
        bytes memory username = _username(kind, name, starts, providerLabel);
        if (username.length == 0) return (true, "");
        return (true, bytes.concat(provider, ":", username));
    }

    /// @notice ENSIP-1 namehash of a DNS-encoded name; zero for a malformed or over-long one (as for the root).
    /// @param name The DNS wire-format encoding of the name.
    function namehash(bytes calldata name) internal pure returns (bytes32 node) {
        uint256[] memory starts = _labelStarts(name);
        for (uint256 i = starts.length; i > 0; --i) {
            node = keccak256(abi.encodePacked(node, keccak256(_label(name, starts[i - 1]))));
        }
    }

    /// @dev Offsets of each label's length byte; empty for a malformed or over-long name (or the root).
    function _labelStarts(bytes calldata name) private pure returns (uint256[] memory starts) {
        if (name.length == 0 || name.length > MAX_NAME_BYTES) return starts;
        uint256 count;
        uint256 offset;
        while (offset < name.length && name[offset] != 0) {
            offset += 1 + uint256(uint8(name[offset]));
            ++count;
        }
        // The zero byte must end the name exactly.
        if (offset != name.length - 1) return starts;
        starts = new uint256[](count);
        offset = 0;
        for (uint256 i = 0; i < count; ++i) {
            starts[i] = offset;
            offset += 1 + uint256(uint8(name[offset]));
        }
    }

    /// @dev The label at `start` (the offset of its length byte).
    function _label(bytes calldata name, uint256 start) private pure returns (bytes calldata) {
        return name[start + 1:start + 1 + uint256(uint8(name[start]))];
    }

    /// @dev Index of the first label of the domain, whose suffix hashes to `domainNode` (ENSIP-1 namehash,
    ///      computed from the right); 0 if there is none or no label precedes it.
    function _domainLabel(
        bytes calldata name,
        uint256[] memory starts,
        bytes32 domainNode
    ) private pure returns (uint256) {
        bytes32 node;
        for (uint256 i = starts.length; i > 0; --i) {
            node = keccak256(abi.encodePacked(node, keccak256(_label(name, starts[i - 1]))));
            if (node == domainNode) return i - 1;
        }
        return 0;
    }

    /// @dev Every byte in [a-z0-9-]: ENSIP-15 maps these to themselves, so such a label is normalized unless
    ///      it has the label extension (see _hasLabelExtension). Anything else is the gateway's to normalize.
    function _isPlainLabel(bytes calldata label) private pure returns (bool) {
        for (uint256 i = 0; i < label.length; ++i) {
            bytes1 c = label[i];
            if (!((c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "-")) return false;
        }
        return true;
    }

    /// @dev ENSIP-15: an ASCII label whose 3rd and 4th characters are "--" is not normalized, so no user id
    ///      has a name with such a username label.
    function _hasLabelExtension(
        bytes calldata name,
        uint256[] memory starts,
        uint256 count
    ) private pure returns (bool) {
        for (uint256 i = 0; i < count; ++i) {
            bytes calldata label = _label(name, starts[i]);
            if (label.length >= 4 && label[2] == "-" && label[3] == "-") return true;
        }
        return false;
    }

    /// @dev The built-in provider a label names (design §3), or None for an app-owned one.
    function _provider(bytes calldata label) private pure returns (Provider) {
        // bytes32(label) is the label left-aligned and zero-padded, as the string literals are.
        bytes32 word = bytes32(label);
        uint256 length = label.length;
        if (length == 3 && word == "tel") return Provider.Tel;
        if (length == 5 && word == "email") return Provider.Email;
        if (length == 6 && word == "github") return Provider.Github;
        if (length == 7 && word == "twitter") return Provider.Twitter;
        if (length == 1 && word == "x") return Provider.X;
        if (length == 7 && word == "discord") return Provider.Discord;
        if (length == 8 && word == "telegram") return Provider.Telegram;
        if (length == 6 && word == "google") return Provider.Google;
        if (length == 5 && word == "apple") return Provider.Apple;
        return Provider.None;
    }

    /// @dev The canonical username of the `count` username labels under `kind`, or empty if they break its rule.
    function _username(
        Provider kind,
        bytes calldata name,
        uint256[] memory starts,
        uint256 count
    ) private pure returns (bytes memory) {
        if (kind == Provider.Email || kind == Provider.Google) return _emailAddress(name, starts, count);
        if (kind == Provider.Discord) {
            // Discord usernames may hold dots, which span labels; its "_" is written "-".
            bytes memory username = _join(name, starts, 0, count, true);
            return username.length >= 2 && username.length <= 32 ? username : bytes("");
        }
        if (kind == Provider.Apple) {
            // Apple's subject: hex digits in dot-separated groups.
            bytes memory username = _join(name, starts, 0, count, false);
            if (username.length > 255) return "";
            for (uint256 i = 0; i < username.length; ++i) {
                bytes1 c = username[i];
                if (!((c >= "0" && c <= "9") || (c >= "a" && c <= "f") || c == ".")) return "";
            }
            return username;
        }
        // The other providers' usernames are one label.
        if (count != 1) return "";
        bytes calldata label = _label(name, starts[0]);
        bool valid;
        if (kind == Provider.Tel) {
            valid = _isE164(label);
        } else if (kind == Provider.Github) {
            valid = _isGithubLogin(label);
        } else if (kind == Provider.Telegram) {
            valid = label.length >= 5 && label.length <= 32;
            valid = valid && label[0] >= "a" && label[0] <= "z" && label[label.length - 1] != "-";
        } else {
            // x and twitter.
            valid = label.length <= 15;
        }
        if (!valid) return "";
        // Telegram, x and twitter usernames cannot hold "-": their "_" is written "-".
        return _join(name, starts, 0, 1, kind != Provider.Tel && kind != Provider.Github);
    }

    /// @dev ITU-T E.164: 8 to 15 digits with the country code, the first not 0.
    function _isE164(bytes calldata label) private pure returns (bool) {
        if (label.length < 8 || label.length > 15 || label[0] == "0") return false;
        for (uint256 i = 0; i < label.length; ++i) {
            if (label[i] < "0" || label[i] > "9") return false;
        }
        return true;
    }

    /// @dev GitHub logins: 1 to 39 characters, no "-" first, last, or twice in a row.
    function _isGithubLogin(bytes calldata label) private pure returns (bool) {
        if (label.length > 39 || label[0] == "-" || label[label.length - 1] == "-") return false;
        for (uint256 i = 1; i < label.length; ++i) {
            if (label[i] == "-" && label[i - 1] == "-") return false;
        }
        return true;
    }

    /// @dev `local@domain` from `<local labels>.at.<domain labels>`, split at the first `at` label: at least one
    ///      local label, a domain of at least two labels, at most 254 bytes.
    function _emailAddress(
        bytes calldata name,
        uint256[] memory starts,
        uint256 count
    ) private pure returns (bytes memory) {
        uint256 at = 0;
        while (at < count && !_isAtLabel(_label(name, starts[at]))) ++at;
        if (at == 0 || at + 3 > count) return "";
        // The labels and their separators, less ".at." replaced by "@".
        if (starts[count] - 1 - 3 > MAX_EMAIL_BYTES) return "";
        return bytes.concat(_join(name, starts, 0, at, false), "@", _join(name, starts, at + 1, count, false));
    }

    function _isAtLabel(bytes calldata label) private pure returns (bool) {
        return label.length == 2 && label[0] == "a" && label[1] == "t";
    }

    /// @dev Labels `from` to `to - 1` joined by ".", with every "-" written "_" if `underscores`.
    function _join(
        bytes calldata name,
        uint256[] memory starts,
        uint256 from,
        uint256 to,
        bool underscores
    ) private pure returns (bytes memory joined) {
        uint256 begin = starts[from] + 1;
        // The labels' bytes with the length bytes between them, which become dots.
        joined = name[begin:starts[to]];
        for (uint256 i = from + 1; i < to; ++i) joined[starts[i] - begin] = ".";
        if (!underscores) return joined;
        for (uint256 i = 0; i < joined.length; ++i) {
            if (joined[i] == "-") joined[i] = "_";
        }
    }
}
