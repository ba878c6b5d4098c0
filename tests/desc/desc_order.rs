// SPDX-License-Identifier: GPL-2.0
//
// The Rust emitters' byte-order rule (emitlib/rust/desc_order.rs) on any machine: for the
// fields of one description, which bytes a big-endian writer lays out reversed (numbers:
// integers, floats, times, code units, a counted field read as one number) and which it
// writes as the description gives them (a port, an IPv4 address, hex_bytes, a uuid, single
// bytes). On a little-endian writer nothing changes, so the host's events stay as they are.
// KTAP, one test per field. Built by make (emitlib/build.mk) with rustc alone, the type
// table compiled in (EHCONF_TYPES_TXT at build time); tests/harness/test_desc_order_rust.py
// builds it again over a planted fault and sees it fail.

#[path = "../../emitlib/rust/desc.rs"]
mod desc;
#[path = "../../emitlib/rust/desc_order.rs"]
mod desc_order;

const TYPES_TXT: &str = include_str!(env!("EHCONF_TYPES_TXT"));

/// Each field: its line in the description, then what a big-endian writer lays out.
const FIELDS: &[(&str, &str, &str)] = &[
    ("u32_number", "  u32 count 0a000000", "0000000a"),
    ("i16_number", "  i16 small feff", "fffe"),
    ("u64_hex", "  u64_hex mask 0100000000000080", "8000000000000001"),
    ("f32_bits", "  f32 ratio 0000803f", "3f800000"),
    ("time32", "  time32 when 78563412", "12345678"),
    ("port_network_order", "  port http 0050", "0050"),
    ("ipv4_network_order", "  ipv4 home c0a80001", "c0a80001"),
    ("guid_bytes", "  guid id 0123456789abcdeffedcba9876543210", "0123456789abcdeffedcba9876543210"),
    ("u8_byte", "  u8 one 05", "05"),
    ("u16_slice_each", "  u16_slice list 0100,0200,0300", "0001,0002,0003"),
    ("str16_units", "  str16 text 41004200", "00410042"),
    ("str32_units", "  str32 wide 4100000042000000", "0000004100000042"),
    ("str8_bytes", "  str8 plain 414243", "414243"),
    ("binary_hex_bytes", "  binary blob 01020304", "01020304"),
    ("counted_unsigned_one_number", "  raw:0a:01 n 02000000", "00000002"),
    ("counted_float_one_number", "  raw:0d:08 d 000000000000f03f", "3ff0000000000000"),
    ("counted_odd_size_bytes", "  raw:0d:01 three 010203", "010203"),
    ("counted_pid_wrong_size_bytes", "  raw:0d:05 p 0100", "0100"),
    ("char16_hex_bytes", "  raw:0b:09 h 41004200", "41004200"),
    ("value32_hex_bytes", "  raw:04:09 x 01020304", "01020304"),
    ("value64_ip_is_a_number", "  raw:05:11 wideip 0100000000000000", "0000000000000001"),
    ("value16_ip_is_a_number", "  raw:03:11 ip16 0102", "0201"),
    ("counted_port_bytes", "  raw:0a:10 cport 0050", "0050"),
];

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

fn main() {
    let types = desc::read_types(TYPES_TXT, 8).expect("types.txt");
    let mut text = String::from("case order\nprovider P\nregister\nevent E level=4 keyword=0x1\n");
    for (_, line, _) in FIELDS {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("end\n");
    println!("KTAP version 1");
    println!("1..{}", FIELDS.len() + 1);
    let d = match desc::parse(text.as_bytes(), &types) {
        Ok(s) => s,
        Err(e) => {
            println!("# line {}: {}", e.line, e.why);
            for (i, (name, _, _)) in FIELDS.iter().enumerate() {
                println!("not ok {} {}", i + 1, name);
            }
            println!("not ok {} little_endian_unchanged", FIELDS.len() + 1);
            std::process::exit(1);
        }
    };
    let event = d
        .steps
        .iter()
        .find_map(|s| match s {
            desc::Step::Event(e) => Some(e.clone()),
            _ => None,
        })
        .expect("the description has an event");
    let mut failed = 0;
    let mut unchanged = true;
    for (i, ((name, _, want), f)) in FIELDS.iter().zip(&event.fields).enumerate() {
        let (enc, fmt, values) = match f.kind {
            desc::Kind::Value { enc, fmt, ref values, .. } => (enc, fmt, values),
            _ => panic!("{}: not a value field", name),
        };
        let got: Vec<String> = values.iter().map(|v| hex(&desc_order::ordered(enc, fmt, v, true))).collect();
        let got = got.join(",");
        unchanged &= values.iter().all(|v| desc_order::ordered(enc, fmt, v, false) == *v);
        if got == *want {
            println!("ok {} {}", i + 1, name);
        } else {
            failed += 1;
            println!("# {}: a big-endian writer lays out {}, the rule says {}", name, got, want);
            println!("not ok {} {}", i + 1, name);
        }
    }
    if unchanged {
        println!("ok {} little_endian_unchanged", FIELDS.len() + 1);
    } else {
        failed += 1;
        println!("not ok {} little_endian_unchanged", FIELDS.len() + 1);
    }
    std::process::exit(if failed > 0 { 1 } else { 0 });
}
