//! `capfc headroom` through the binary: the Annex N example to the bit time, the seed's 100G cable
//! delays, independent hand calculations, the measured variant, and every kind of nonsense input.
//!
//! Expected values are worked out by hand in the comments, not taken from the code under test.
//!
//! Everything sits in `mod headroom_cli` so that `cargo test --test headroom --lib headroom` (whose filter
//! also applies to this file) runs it.

mod headroom_cli {
    use std::process::{Command, Output};

    fn capfc(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_capfc"))
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .arg("headroom")
            .args(args)
            .output()
            .expect("run capfc")
    }

    /// Runs with `--json` and returns the parsed object; panics with stderr if the command failed.
    fn json(args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = capfc(&all);
        assert!(
            out.status.success(),
            "capfc headroom {all:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
    }

    fn u(v: &serde_json::Value, field: &str) -> u64 {
        v[field]
            .as_u64()
            .unwrap_or_else(|| panic!("field {field} missing or not an integer in {v}"))
    }

    fn term(v: &serde_json::Value, name: &str) -> u64 {
        v["terms"]
            .as_array()
            .expect("terms array")
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("term {name} missing in {v}"))["bits"]
            .as_u64()
            .unwrap()
    }

    #[test]
    fn annex_n_example_to_the_bit_time() {
        // 802.1Q-2018 Annex N: 2·16160 + 672 + 2·5556 + (25600 + 12288) + (25600 + 12288) + 6144.
        let v = json(&["--phy", "10GBASE-T", "--cable", "100m"]);
        assert_eq!(u(&v, "dv_bits"), 126_024);
        assert_eq!(u(&v, "dv_bytes"), 15_753); // ceil(126024 / 8)
        assert_eq!(term(&v, "max_frame"), 2 * 16_160);
        assert_eq!(term(&v, "pfc_frame"), 672);
        assert_eq!(term(&v, "cable_delay"), 2 * 5_556);
        assert_eq!(term(&v, "tx_s1"), 25_600);
        assert_eq!(term(&v, "rx_s2"), 12_288);
        assert_eq!(term(&v, "tx_s2"), 25_600);
        assert_eq!(term(&v, "rx_s1"), 12_288);
        assert_eq!(term(&v, "hd_s2"), 6_144);
        // α = 1, 160-byte cells: 15753 bytes → ceil(15753 / 160) = 99 cells.
        assert_eq!(u(&v, "headroom_bytes"), 15_753);
        assert_eq!(u(&v, "headroom_cells"), 99);
        assert!(v.get("xoff_bytes").is_none(), "no --max, no xoff: {v}");
    }

    #[test]
    fn phy_names_are_case_insensitive() {
        let v = json(&["--phy", "10gbase-t", "--cable", "0.1km"]);
        assert_eq!(u(&v, "dv_bits"), 126_024);
    }

    #[test]
    fn hundred_g_cable_delays_from_the_seed() {
        // Seed 004: 100GBASE-R, 10 m → 5000 bit times; 10 km → 5,000,000 bit times.
        let v = json(&["--phy", "100GBASE-R", "--cable", "10m"]);
        assert_eq!(u(&v, "cable_delay_bits"), 5_000);
        let v = json(&["--phy", "100gbase-r", "--cable", "10km"]);
        assert_eq!(u(&v, "cable_delay_bits"), 5_000_000);
        // And the DV with the 802.3 maximum ID + HD of 132608: 2·16160 + 672 + 2·5000000 + 132608.
        assert_eq!(u(&v, "dv_bits"), 32_320 + 672 + 10_000_000 + 132_608);
    }

    #[test]
    fn hand_calculation_25g_300m_fibre_explicit_delays() {
        // 300 m · 5 ns/m = 1500 ns; at 25 Gb/s that is 37500 bit times.
        // MaxFrame 1538 bytes = 12304 bits, PFC 84 bytes = 672 bits.
        // DV = 2·12304 + 672 + 2·37500 + (1000 + 2000) + (1000 + 2000) + 3000 = 109280 bit times
        //    = 13660 bytes; α 1.5 → 20490 bytes → 10 cells of 2048 = 20480 < 20490 → 11 cells = 22528;
        //    XOFF = 100000 − 22528 = 77472.
        let v = json(&[
            "--phy",
            "25GBASE-R",
            "--cable",
            "300m",
            "--medium",
            "fibre",
            "--max-frame",
            "1538",
            "--tx-delay",
            "1000",
            "--rx-delay",
            "2000",
            "--hd",
            "3000",
            "--alpha",
            "1.5",
            "--cell",
            "2048",
            "--max",
            "100000",
        ]);
        assert_eq!(u(&v, "cable_delay_bits"), 37_500);
        assert_eq!(u(&v, "dv_bits"), 109_280);
        assert_eq!(u(&v, "dv_bytes"), 13_660);
        assert_eq!(u(&v, "headroom_bytes"), 20_490);
        assert_eq!(u(&v, "headroom_cells"), 11);
        assert_eq!(u(&v, "xoff_bytes"), 77_472);
    }

    #[test]
    fn hand_calculation_1g_cat6_rounds_cable_up() {
        // 1 m of Cat6 at 1 Gb/s: 5.556 ns → 5.556 bit times → rounded up to 6.
        // 7 m: 38.892 → 39. Speed override to 2.5 Gb/s, 7 m: 97.23 → 98.
        let v = json(&["--phy", "1000BASE-T", "--cable", "1m"]);
        assert_eq!(u(&v, "cable_delay_bits"), 6);
        let v = json(&["--phy", "1000BASE-T", "--cable", "7m"]);
        assert_eq!(u(&v, "cable_delay_bits"), 39);
        let v = json(&["--phy", "1000BASE-T", "--speed", "2.5G", "--cable", "7m"]);
        assert_eq!(u(&v, "cable_delay_bits"), 98);
        assert_eq!(u(&v, "speed_bps"), 2_500_000_000);
    }

    #[test]
    fn ns_per_m_and_remote_overrides() {
        // 10GBASE-T example but 4 ns/m, remote TX 20000, remote RX 10000:
        // 2·16160 + 672 + 2·4000 + (25600 + 10000) + (20000 + 12288) + 6144 = 115,024.
        let v = json(&[
            "--phy",
            "10GBASE-T",
            "--cable",
            "100m",
            "--ns-per-m",
            "4",
            "--remote-tx-delay",
            "20000",
            "--remote-rx-delay",
            "10000",
        ]);
        assert_eq!(term(&v, "rx_s2"), 10_000);
        assert_eq!(term(&v, "tx_s2"), 20_000);
        assert_eq!(u(&v, "dv_bits"), 115_024);
    }

    #[test]
    fn xoff_from_max() {
        // Example DV 15753 bytes → 99 cells of 160 = 15840 bytes; MAX 65536 → XOFF 49696.
        let v = json(&["--phy", "10GBASE-T", "--cable", "100m", "--max", "65536"]);
        assert_eq!(u(&v, "xoff_bytes"), 49_696);
    }

    #[test]
    fn measured_variant_hand_calculation() {
        // 100 Gb/s: T1 = 0, T2 = 1000, T3 = 1500, T4 = 2600 ns.
        // X = (2600 − 0 − (1500 − 1000)) ns · 100 bit/ns = 210000 bit times.
        // DV = 210000 + 2·16160 + 672 = 242992 bit times = 30374 bytes.
        let v = json(&[
            "--phy",
            "100GBASE-R",
            "--measured",
            "0",
            "1000",
            "1500",
            "2600",
        ]);
        assert_eq!(v["method"], "measured");
        assert_eq!(u(&v, "measured_x_bits"), 210_000);
        assert_eq!(u(&v, "dv_bits"), 242_992);
        assert_eq!(u(&v, "dv_bytes"), 30_374);
    }

    #[test]
    fn measured_variant_units_clock_offset_and_rounding() {
        // 10 Gb/s; station 2's clock is far from station 1's (T2 < T1 is fine).
        // T4 − T1 = 3.0001 us = 3000.1 ns; T3 − T2 = 200 ns; X = 2800.1 ns · 10 = 28001 bit times.
        // DV = 28001 + 2·16160 + 672 = 60993.
        let v = json(&[
            "--speed",
            "10G",
            "--measured",
            "5us",
            "-1000",
            "-800ns",
            "8000.1",
        ]);
        assert_eq!(u(&v, "measured_x_bits"), 28_001);
        assert_eq!(u(&v, "dv_bits"), 60_993);
        // 0.05 ns more makes X 28001.5 → rounded up to 28002.
        let v = json(&[
            "--speed",
            "10G",
            "--measured",
            "5us",
            "-1000",
            "-800ns",
            "8000.15",
        ]);
        assert_eq!(u(&v, "measured_x_bits"), 28_002);
    }

    #[test]
    fn human_output_lists_terms_one_per_line() {
        let out = capfc(&["--phy", "10GBASE-T", "--cable", "100m", "--max", "65536"]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let line = |name: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(name))
                .unwrap_or_else(|| panic!("no line for {name}:\n{text}"))
                .to_string()
        };
        // name, value in bit times, in bytes.
        assert!(line("max_frame").ends_with(" 32320        4040"), "{text}");
        assert!(
            line("cable_delay").ends_with(" 11112        1389"),
            "{text}"
        );
        assert!(line("hd_s2").ends_with(" 6144         768"), "{text}");
        assert!(line("dv").ends_with(" 126024       15753"), "{text}");
        assert!(line("xoff").contains("49696"), "{text}");
    }

    /// Each kind of nonsense input fails with exit 1 (from `capfc: ...`, not a panic or clap's exit 2)
    /// and names the flag.
    #[test]
    fn nonsense_input_names_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--phy", "10GBASE-Q", "--cable", "100m"],
                "--phy '10GBASE-Q'",
            ),
            (&["--phy", "10GBASE-T", "--cable", "-5m"], "--cable '-5m'"),
            (&["--phy", "10GBASE-T", "--cable", "100"], "--cable '100'"),
            (
                &["--phy", "10GBASE-T", "--cable", "ten m"],
                "--cable 'ten m'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "100parsecs"],
                "--cable '100parsecs'",
            ),
            (&["--phy", "10GBASE-T"], "--cable"),
            (&["--cable", "100m"], "--phy"),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--speed", "fast"],
                "--speed 'fast'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--speed", "-10G"],
                "--speed '-10G'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--medium", "air"],
                "--medium 'air'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--alpha", "0.9"],
                "--alpha '0.9'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--alpha", "x"],
                "--alpha 'x'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--cell", "0"],
                "--cell '0'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--max-frame", "1.5"],
                "--max-frame '1.5'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--tx-delay", "-3"],
                "--tx-delay '-3'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--hd", "lots"],
                "--hd 'lots'",
            ),
            (
                &["--phy", "10GBASE-T", "--cable", "1m", "--ns-per-m", "0"],
                "--ns-per-m '0'",
            ),
            // DV 15753 bytes → 99 cells = 15840 bytes; MAX 15840 leaves no XOFF.
            (
                &["--phy", "10GBASE-T", "--cable", "100m", "--max", "15840"],
                "--max '15840'",
            ),
            (&["--speed", "10G", "--cable", "100m"], "--tx-delay"),
            (
                &["--phy", "100GBASE-R", "--measured", "100", "0", "0", "50"],
                "T4 (50 ns) is before T1 (100 ns)",
            ),
            (
                &["--phy", "100GBASE-R", "--measured", "0", "10", "5", "50"],
                "T3 (5 ns) is before T2 (10 ns)",
            ),
            (
                &["--phy", "100GBASE-R", "--measured", "0", "0", "60", "50"],
                "not longer than the remote's turnaround",
            ),
            (
                &["--phy", "100GBASE-R", "--measured", "0", "0", "x", "50"],
                "--measured T3 'x'",
            ),
        ];
        for (args, needle) in cases {
            let out = capfc(args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: stderr {stderr}");
            assert!(stderr.starts_with("capfc: "), "{args:?}: {stderr}");
            assert!(
                stderr.contains(needle),
                "{args:?}: expected {needle:?} in {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        }
        // The measured errors also say which flag they come from.
        let out = capfc(&["--phy", "100GBASE-R", "--measured", "100", "0", "0", "50"]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("--measured"));
    }

    #[test]
    fn measured_conflicts_with_cable() {
        let out = capfc(&[
            "--phy",
            "100GBASE-R",
            "--cable",
            "10m",
            "--measured",
            "0",
            "1",
            "2",
            "9",
        ]);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--measured") && stderr.contains("--cable"),
            "{stderr}"
        );
    }
}
