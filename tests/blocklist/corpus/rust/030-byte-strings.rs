/// Byte-level utilities: CRC-32, hex dump, base64 and a tiny packet format.
fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for i in 0..256u32 {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        table[i as usize] = c;
    }
    !data.iter().fold(!0u32, |crc, &b| table[((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8))
}

fn hexdump(data: &[u8]) {
    for (i, chunk) in data.chunks(16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{:02x}", b)).collect();
        let ascii: String = chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        println!("{:08x}  {:<47}  |{}|", i * 16, hex.join(" "), ascii);
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Packet: magic "PK", 1 byte version, 2 bytes big-endian length, payload, 4 byte CRC.
fn encode(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len() + 9);
    v.extend_from_slice(b"PK");
    v.push(1);
    v.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    v.extend_from_slice(payload);
    v.extend_from_slice(&crc32(payload).to_be_bytes());
    v
}

fn decode(p: &[u8]) -> Result<&[u8], String> {
    match p {
        [b'P', b'K', 1, hi, lo, rest @ ..] => {
            let len = u16::from_be_bytes([*hi, *lo]) as usize;
            if rest.len() != len + 4 {
                return Err(format!("length mismatch: header says {}, have {}", len, rest.len().saturating_sub(4)));
            }
            let (body, crc) = rest.split_at(len);
            let want = u32::from_be_bytes(crc.try_into().unwrap());
            if crc32(body) != want { Err(format!("crc mismatch: {:08x} != {:08x}", crc32(body), want)) } else { Ok(body) }
        }
        [b'P', b'K', v, ..] => Err(format!("unsupported version {}", v)),
        _ => Err("bad magic".to_string()),
    }
}

fn main() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    println!("crc32(\"The quick brown fox\") = {:08x}", crc32(b"The quick brown fox"));
    for s in [&b""[..], b"f", b"fo", b"foo", b"foobar", "héllo ✓".as_bytes()] {
        println!("base64({:?}) = {}", String::from_utf8_lossy(s), base64(s));
    }
    let msg = b"GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n";
    let packet = encode(msg);
    hexdump(&packet);
    println!("decoded: {:?}", decode(&packet).map(|b| String::from_utf8_lossy(b).into_owned()));
    let mut corrupt = packet.clone();
    corrupt[10] ^= 0x20;
    println!("corrupted: {:?}", decode(&corrupt));
    println!("truncated: {:?}", decode(&packet[..packet.len() - 1]));
    println!("version 2: {:?}", decode(b"PK\x02\x00\x00"));
    println!("garbage:   {:?}", decode(br"\x00not a packet"));
    let escaped = b"tab\there, quote\" and backslash\\";
    println!("{} bytes: {}", escaped.len(), escaped.escape_ascii());
}
