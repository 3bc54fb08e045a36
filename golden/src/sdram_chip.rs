//! The SDRAM chip behind a board's pins (issue 35): a cycle-accurate model of a 16-bit SDR
//! SDRAM (the ULX3S's MT48LC16M16A2 or AS4C32M16SB) that carries out the controller's
//! commands and checks every one of them against the part's datasheet timings. It is what
//! `board-sim` puts behind the board top's `sdram_*` pins, and what an SDRAM controller's tests
//! run against. The first rule broken stops the chip with one line naming the cycle and the
//! rule ([`SdramViolation`]).
//!
//! ```text
//!   controller ── cs_n ras_n cas_n we_n ba addr dqm ─►┌────────────────────────────┐
//!              ── dq_out, dq_oe (writes) ────────────►│ SdramChip: banks, rows,    │
//!              ◄─ dq (reads, CAS latency later) ──────│ bursts, mode register;     │
//!                                                     │ every command checked      │──► Err(SdramViolation)
//!                                                     └────────────────────────────┘
//! ```
//!
//! # Timing contract of the model
//!
//! * One [`SdramChip::clock`] call is one rising edge of the SDRAM clock; the pins are what the
//!   controller drives in the cycle before that edge. [`SdramChip::dq`] is what the chip drives
//!   in the cycle after the last edge: read data for a READ at edge n is sampled by the
//!   controller at edge n + CL, so it is driven after edge n + CL − 1 (one word per edge of the
//!   burst). DQM masks write data at its edge and read data two edges later (a masked byte is
//!   not driven).
//! * Commands (cs_n, ras_n, cas_n, we_n): INHIBIT (cs_n high), NOP 0111, ACTIVE 0011, READ 0101,
//!   WRITE 0100, BURST TERMINATE 0110, PRECHARGE 0010 (A10: all banks), AUTO REFRESH 0001, LOAD
//!   MODE REGISTER 0000. CKE is high throughout (power-down and self refresh are not modelled).
//! * Mode register: burst length 1, 2, 4, 8 or a full page (A2..A0), sequential bursts (A3 = 0),
//!   CAS latency 2 or 3 (A6..A4), write bursts or single writes (A9). A write burst takes data
//!   from the WRITE edge on; a read or write burst wraps inside its burst-length-aligned block
//!   of columns. A new READ or WRITE, a BURST TERMINATE or a PRECHARGE of the burst's bank ends
//!   the burst at that edge (read data already fetched still comes out).
//! * Rules, each named in the violation as the datasheet names it:
//!   `tINIT` (only NOP/INHIBIT during the power-up wait), `init` (ACTIVE, READ or WRITE before
//!   PRECHARGE ALL, two AUTO REFRESH and LOAD MODE REGISTER), `tMRD`, `tRCD`, `tRP`, `tRAS`,
//!   `tRAS max`, `tRC`, `tRRD`, `tWR`, `tRFC`, `refresh interval` (at most 8 AUTO REFRESH
//!   commands postponed against one per tREFI since initialisation), `bank state` (ACTIVE to an
//!   open bank, READ or WRITE to a closed one, AUTO REFRESH or LOAD MODE REGISTER with a bank
//!   open), `address` (row, column or bank out of range), `dq contention` (the controller drives
//!   dq while the chip does), `unsupported` (auto precharge, interleaved bursts, other modes).

use std::collections::{HashMap, VecDeque};

/// A part's datasheet timings (nanoseconds unless named otherwise), at its speed grade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdramTimings {
    /// Power-up wait before the first command other than NOP or INHIBIT.
    pub t_init_ns: f64,
    /// PRECHARGE to ACTIVE, AUTO REFRESH or LOAD MODE REGISTER.
    pub t_rp_ns: f64,
    /// AUTO REFRESH to the next command other than NOP.
    pub t_rfc_ns: f64,
    /// ACTIVE to PRECHARGE, at least.
    pub t_ras_ns: f64,
    /// ACTIVE to PRECHARGE, at most.
    pub t_ras_max_ns: f64,
    /// ACTIVE to ACTIVE in the same bank.
    pub t_rc_ns: f64,
    /// ACTIVE to READ or WRITE.
    pub t_rcd_ns: f64,
    /// ACTIVE to ACTIVE in another bank.
    pub t_rrd_ns: f64,
    /// Last write data to PRECHARGE (write recovery).
    pub t_wr_ns: f64,
    /// Average AUTO REFRESH interval: 64 ms over 8192 rows.
    pub t_refi_ns: f64,
    /// LOAD MODE REGISTER to the next command, clocks.
    pub t_mrd_clocks: u32,
    /// Highest clock at CAS latency 2 and at 3, Hz.
    pub max_hz_cl2: f64,
    pub max_hz_cl3: f64,
}

/// One SDRAM part: geometry and timings. The data bus is 16 bits (two byte lanes, DQML/DQMH).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SdramPart {
    /// The part number, as on the board's bill of materials.
    pub name: &'static str,
    pub banks: u32,
    pub rows: u32,
    pub columns: u32,
    pub timings: SdramTimings,
}

/// Micron MT48LC16M16A2-75 (4 M × 16 × 4 banks, 32 MB; the ULX3S's usual part): 8192 rows,
/// 512 columns; `-75` speed grade (133 MHz at CL 3, 100 MHz at CL 2).
pub const MT48LC16M16A2: SdramPart = SdramPart {
    name: "MT48LC16M16A2-75",
    banks: 4,
    rows: 8192,
    columns: 512,
    timings: SdramTimings {
        t_init_ns: 100_000.0,
        t_rp_ns: 20.0,
        t_rfc_ns: 66.0,
        t_ras_ns: 44.0,
        t_ras_max_ns: 120_000.0,
        t_rc_ns: 66.0,
        t_rcd_ns: 20.0,
        t_rrd_ns: 15.0,
        t_wr_ns: 15.0,
        t_refi_ns: 64e6 / 8192.0,
        t_mrd_clocks: 2,
        max_hz_cl2: 100e6,
        max_hz_cl3: 133e6,
    },
};

/// Alliance AS4C32M16SB-7 (8 M × 16 × 4 banks, 64 MB; carried by some ULX3S boards): 8192
/// rows, 1024 columns; `-7` speed grade (143 MHz at CL 3, 100 MHz at CL 2).
pub const AS4C32M16SB: SdramPart = SdramPart {
    name: "AS4C32M16SB-7",
    banks: 4,
    rows: 8192,
    columns: 1024,
    timings: SdramTimings {
        t_init_ns: 200_000.0,
        t_rp_ns: 21.0,
        t_rfc_ns: 63.0,
        t_ras_ns: 42.0,
        t_ras_max_ns: 100_000.0,
        t_rc_ns: 63.0,
        t_rcd_ns: 21.0,
        t_rrd_ns: 14.0,
        t_wr_ns: 14.0,
        t_refi_ns: 64e6 / 8192.0,
        t_mrd_clocks: 2,
        max_hz_cl2: 100e6,
        max_hz_cl3: 143e6,
    },
};

impl SdramPart {
    /// Bytes of the part (16-bit words × 2).
    pub fn bytes(&self) -> u64 {
        2 * u64::from(self.banks) * u64::from(self.rows) * u64::from(self.columns)
    }

    /// The same part with another power-up wait: simulations shorten the 100–200 µs wait
    /// (every other rule stays the datasheet's).
    pub fn with_init_ns(mut self, ns: f64) -> SdramPart {
        self.timings.t_init_ns = ns;
        self
    }
}

/// A datasheet time in clocks at `clock_hz`, rounded up.
pub fn clocks(ns: f64, clock_hz: f64) -> u64 {
    (ns * clock_hz / 1e9 - 1e-9).ceil().max(0.0) as u64
}

/// The part's timings in clocks at one clock frequency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdramClocks {
    pub init: u64,
    pub rp: u64,
    pub rfc: u64,
    pub ras: u64,
    pub ras_max: u64,
    pub rc: u64,
    pub rcd: u64,
    pub rrd: u64,
    pub wr: u64,
    pub refi: u64,
    pub mrd: u64,
}

impl SdramTimings {
    /// Every timing in clocks at `clock_hz` (rounded up; tREFI, a maximum, rounded down).
    pub fn at(&self, clock_hz: f64) -> SdramClocks {
        SdramClocks {
            init: clocks(self.t_init_ns, clock_hz),
            rp: clocks(self.t_rp_ns, clock_hz),
            rfc: clocks(self.t_rfc_ns, clock_hz),
            ras: clocks(self.t_ras_ns, clock_hz),
            ras_max: (self.t_ras_max_ns * clock_hz / 1e9).floor() as u64,
            rc: clocks(self.t_rc_ns, clock_hz),
            rcd: clocks(self.t_rcd_ns, clock_hz),
            rrd: clocks(self.t_rrd_ns, clock_hz),
            wr: clocks(self.t_wr_ns, clock_hz),
            refi: (self.t_refi_ns * clock_hz / 1e9).floor() as u64,
            mrd: u64::from(self.t_mrd_clocks),
        }
    }
}

/// What the controller drives in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SdramPins {
    pub cs_n: bool,
    pub ras_n: bool,
    pub cas_n: bool,
    pub we_n: bool,
    pub ba: u8,
    pub addr: u16,
    /// DQMH:DQML, a set bit masks its byte lane.
    pub dqm: u8,
    pub dq_out: u16,
    /// The controller drives `dq_out` on dq.
    pub dq_oe: bool,
}

/// A command on the pins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdramCmd {
    Inhibit,
    Nop,
    Active {
        bank: u8,
        row: u16,
    },
    Read {
        bank: u8,
        column: u16,
        auto_precharge: bool,
    },
    Write {
        bank: u8,
        column: u16,
        auto_precharge: bool,
        data: u16,
    },
    BurstTerminate,
    Precharge {
        bank: u8,
        all: bool,
    },
    Refresh,
    LoadMode {
        mode: u16,
    },
}

impl SdramCmd {
    /// The command's name as the datasheet's truth table gives it.
    pub fn name(&self) -> &'static str {
        match self {
            SdramCmd::Inhibit => "INHIBIT",
            SdramCmd::Nop => "NOP",
            SdramCmd::Active { .. } => "ACTIVE",
            SdramCmd::Read { .. } => "READ",
            SdramCmd::Write { .. } => "WRITE",
            SdramCmd::BurstTerminate => "BURST TERMINATE",
            SdramCmd::Precharge { all: true, .. } => "PRECHARGE ALL",
            SdramCmd::Precharge { .. } => "PRECHARGE",
            SdramCmd::Refresh => "AUTO REFRESH",
            SdramCmd::LoadMode { .. } => "LOAD MODE REGISTER",
        }
    }

    /// The pins that carry the command (A10 for auto precharge and PRECHARGE ALL; DQM 0).
    pub fn pins(&self) -> SdramPins {
        let p = |ras_n, cas_n, we_n| SdramPins {
            ras_n,
            cas_n,
            we_n,
            ..SdramPins::default()
        };
        let a10 = |on: bool| if on { 1u16 << 10 } else { 0 };
        match *self {
            SdramCmd::Inhibit => SdramPins {
                cs_n: true,
                ras_n: true,
                cas_n: true,
                we_n: true,
                ..SdramPins::default()
            },
            SdramCmd::Nop => p(true, true, true),
            SdramCmd::Active { bank, row } => SdramPins {
                ba: bank,
                addr: row,
                ..p(false, true, true)
            },
            SdramCmd::Read {
                bank,
                column,
                auto_precharge,
            } => SdramPins {
                ba: bank,
                addr: column | a10(auto_precharge),
                ..p(true, false, true)
            },
            SdramCmd::Write {
                bank,
                column,
                auto_precharge,
                data,
            } => SdramPins {
                ba: bank,
                addr: column | a10(auto_precharge),
                dq_out: data,
                dq_oe: true,
                ..p(true, false, false)
            },
            SdramCmd::BurstTerminate => p(true, true, false),
            SdramCmd::Precharge { bank, all } => SdramPins {
                ba: bank,
                addr: a10(all),
                ..p(false, true, false)
            },
            SdramCmd::Refresh => p(false, false, true),
            SdramCmd::LoadMode { mode } => SdramPins {
                addr: mode,
                ..p(false, false, false)
            },
        }
    }

    /// Decode the pins.
    pub fn decode(p: &SdramPins) -> SdramCmd {
        if p.cs_n {
            return SdramCmd::Inhibit;
        }
        let a10 = p.addr >> 10 & 1 == 1;
        let column = p.addr & !(1 << 10);
        match (p.ras_n, p.cas_n, p.we_n) {
            (true, true, true) => SdramCmd::Nop,
            (false, true, true) => SdramCmd::Active {
                bank: p.ba,
                row: p.addr,
            },
            (true, false, true) => SdramCmd::Read {
                bank: p.ba,
                column,
                auto_precharge: a10,
            },
            (true, false, false) => SdramCmd::Write {
                bank: p.ba,
                column,
                auto_precharge: a10,
                data: p.dq_out,
            },
            (true, true, false) => SdramCmd::BurstTerminate,
            (false, true, false) => SdramCmd::Precharge { bank: p.ba, all: a10 },
            (false, false, true) => SdramCmd::Refresh,
            (false, false, false) => SdramCmd::LoadMode { mode: p.addr },
        }
    }
}

/// The mode register's fields this model supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SdramMode {
    /// Burst length in words: 1, 2, 4, 8 or the part's columns (full page).
    pub burst: u32,
    /// CAS latency, 2 or 3.
    pub cas_latency: u32,
    /// Writes take one word whatever the burst length (A9).
    pub single_writes: bool,
}

impl SdramMode {
    /// The LOAD MODE REGISTER address bits of the mode (`burst` = 0 for a full page).
    pub fn bits(&self) -> u16 {
        let bl = match self.burst {
            1 => 0,
            2 => 1,
            4 => 2,
            8 => 3,
            _ => 7,
        };
        bl | (self.cas_latency as u16) << 4 | u16::from(self.single_writes) << 9
    }

    fn parse(bits: u16, columns: u32) -> Result<SdramMode, String> {
        let burst = match bits & 7 {
            0 => 1,
            1 => 2,
            2 => 4,
            3 => 8,
            7 => columns,
            b => return Err(format!("burst length code {b} is reserved")),
        };
        if bits >> 3 & 1 == 1 {
            return Err("interleaved bursts (A3 = 1) are not modelled".into());
        }
        let cas_latency = u32::from(bits >> 4 & 7);
        if !(2..=3).contains(&cas_latency) {
            return Err(format!("CAS latency {cas_latency} (A6..A4) is not 2 or 3"));
        }
        if bits >> 7 & 3 != 0 {
            return Err(format!("operating mode {} (A8..A7) is not 0", bits >> 7 & 3));
        }
        Ok(SdramMode {
            burst,
            cas_latency,
            single_writes: bits >> 9 & 1 == 1,
        })
    }
}

/// The first datasheet rule a controller broke: one line naming the cycle and the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdramViolation {
    /// The edge of the command (or of the cycle) that broke it, counted from 0.
    pub cycle: u64,
    /// The rule, as the datasheet names it (`tRCD`, `tRP`, `refresh interval`, ...).
    pub rule: &'static str,
    pub detail: String,
}

impl std::fmt::Display for SdramViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "sdram: cycle {}: {}: {}", self.cycle, self.rule, self.detail)
    }
}

impl std::error::Error for SdramViolation {}

/// Commands and data words the chip has carried out (for tests that assert activity).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SdramChipStats {
    pub activates: u64,
    pub reads: u64,
    pub writes: u64,
    pub precharges: u64,
    pub refreshes: u64,
    pub read_words: u64,
    pub write_words: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Bank {
    /// The open row.
    row: Option<u32>,
    activated_at: Option<u64>,
    precharged_at: Option<u64>,
    /// The first edge at which a PRECHARGE meets tWR after this bank's last write data.
    write_recovered_at: u64,
}

#[derive(Clone, Copy, Debug)]
struct Burst {
    write: bool,
    bank: u8,
    row: u32,
    column: u32,
    start: u64,
    len: u32,
}

/// The chip: its banks, mode register, burst in progress, read pipeline and contents (a sparse
/// map of 16-bit words; never-written words read 0).
#[derive(Clone, Debug)]
pub struct SdramChip {
    part: SdramPart,
    t: SdramClocks,
    /// Edges processed so far; the next [`SdramChip::clock`] is edge `cycle`.
    cycle: u64,
    banks: Vec<Bank>,
    mode: Option<SdramMode>,
    mode_loaded_at: Option<u64>,
    precharged_all: bool,
    init_refreshes: u32,
    /// The edge at which initialisation was complete (LOAD MODE REGISTER after the rest).
    ready_at: Option<u64>,
    refreshes_since_ready: u64,
    last_refresh: Option<u64>,
    last_activate: Option<u64>,
    burst: Option<Burst>,
    /// Read words fetched: (the edge after which they are driven, the word).
    read_pipe: VecDeque<(u64, u16)>,
    /// DQM at the last edge: it masks the read word driven after the next one (latency 2).
    last_dqm: u8,
    /// What the chip drives now: (byte lanes driven, word).
    driving: (u8, u16),
    words: HashMap<u32, u16>,
    stats: SdramChipStats,
    clock_hz: f64,
}

impl SdramChip {
    /// A chip just powered up, clocked at `clock_hz`. A CAS latency the clock does not allow is
    /// refused when the mode register is loaded.
    pub fn new(part: SdramPart, clock_hz: f64) -> SdramChip {
        SdramChip {
            part,
            t: part.timings.at(clock_hz),
            cycle: 0,
            banks: vec![Bank::default(); part.banks as usize],
            mode: None,
            mode_loaded_at: None,
            precharged_all: false,
            init_refreshes: 0,
            ready_at: None,
            refreshes_since_ready: 0,
            last_refresh: None,
            last_activate: None,
            burst: None,
            read_pipe: VecDeque::new(),
            last_dqm: 0,
            driving: (0, 0),
            words: HashMap::new(),
            stats: SdramChipStats::default(),
            clock_hz,
        }
    }

    /// The timings in clocks this chip checks.
    pub fn clocks(&self) -> SdramClocks {
        self.t
    }

    /// Edges processed.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    pub fn stats(&self) -> SdramChipStats {
        self.stats
    }

    /// The mode register, once loaded.
    pub fn mode(&self) -> Option<SdramMode> {
        self.mode
    }

    /// What the chip drives on dq now: `Some(word)` when it drives any byte lane (a lane masked
    /// by DQM reads 0 here and is not driven).
    pub fn dq(&self) -> Option<u16> {
        (self.driving.0 != 0).then_some(self.driving.1)
    }

    /// The word at (bank, row, column), 0 if never written.
    pub fn word(&self, bank: u32, row: u32, column: u32) -> u16 {
        self.words.get(&self.index(bank, row, column)).copied().unwrap_or(0)
    }

    /// Set a word directly (a memory preloaded by the test bench, as a board's would be by the
    /// host before a frame).
    pub fn set_word(&mut self, bank: u32, row: u32, column: u32, value: u16) {
        let i = self.index(bank, row, column);
        self.words.insert(i, value);
    }

    fn index(&self, bank: u32, row: u32, column: u32) -> u32 {
        (bank * self.part.rows + row) * self.part.columns + column
    }

    fn fail(&self, rule: &'static str, detail: String) -> Result<(), SdramViolation> {
        Err(SdramViolation {
            cycle: self.cycle,
            rule,
            detail,
        })
    }

    /// Clocks since edge `at`, if there was one.
    fn since(&self, at: Option<u64>) -> Option<u64> {
        at.map(|a| self.cycle - a)
    }

    /// `rule` holds if `what` comes at least `min` clocks after `after` (at edge `at`, if any).
    fn check_gap(
        &self,
        rule: &'static str,
        what: &str,
        after: &str,
        at: Option<u64>,
        min: u64,
    ) -> Result<(), SdramViolation> {
        match self.since(at) {
            Some(gap) if gap < min => self.fail(rule, format!("{what} {gap} clocks after {after}, {min} needed")),
            _ => Ok(()),
        }
    }

    /// One rising edge of the clock with the controller's `pins`. The first rule broken is
    /// returned; the chip is then in an undefined state (a run stops there).
    pub fn clock(&mut self, pins: &SdramPins) -> Result<(), SdramViolation> {
        let r = self.edge(pins);
        // What is driven after this edge: a fetched read word whose time has come, unless DQM
        // two edges back masked it (a masked byte lane is not driven).
        let mask = self.last_dqm;
        self.last_dqm = pins.dqm & 3;
        self.driving = (0, 0);
        while let Some(&(at, w)) = self.read_pipe.front() {
            if at < self.cycle {
                self.read_pipe.pop_front();
                continue;
            }
            if at == self.cycle {
                let lanes = !mask & 3;
                let keep = (if lanes & 1 != 0 { 0x00ff } else { 0 }) | (if lanes & 2 != 0 { 0xff00 } else { 0 });
                self.driving = (lanes, w & keep);
                self.read_pipe.pop_front();
            }
            break;
        }
        self.cycle += 1;
        r
    }

    fn edge(&mut self, pins: &SdramPins) -> Result<(), SdramViolation> {
        let n = self.cycle;
        let cmd = SdramCmd::decode(pins);
        if pins.dq_oe && self.driving.0 != 0 {
            return self.fail(
                "dq contention",
                format!(
                    "the controller drives dq ({}) while the chip drives read data",
                    cmd.name()
                ),
            );
        }
        if n < self.t.init && !matches!(cmd, SdramCmd::Inhibit | SdramCmd::Nop) {
            return self.fail(
                "tINIT",
                format!("{} during the power-up wait of {} clocks", cmd.name(), self.t.init),
            );
        }
        if let Some(m) = self.mode_loaded_at {
            if n - m < self.t.mrd && !matches!(cmd, SdramCmd::Inhibit | SdramCmd::Nop) {
                return self.fail(
                    "tMRD",
                    format!(
                        "{} {} clocks after LOAD MODE REGISTER, {} needed",
                        cmd.name(),
                        n - m,
                        self.t.mrd
                    ),
                );
            }
        }
        if !matches!(cmd, SdramCmd::Inhibit | SdramCmd::Nop) {
            self.check_gap("tRFC", cmd.name(), "AUTO REFRESH", self.last_refresh, self.t.rfc)?;
        }
        if let SdramCmd::Active { bank, .. }
        | SdramCmd::Read { bank, .. }
        | SdramCmd::Write { bank, .. }
        | SdramCmd::Precharge { bank, .. } = cmd
        {
            if u32::from(bank) >= self.part.banks {
                return self.fail("address", format!("bank {bank} of {}", self.part.banks));
            }
        }
        // Open rows past tRAS max, and the refresh debt.
        for (b, bank) in self.banks.iter().enumerate() {
            if let (Some(_), Some(a)) = (bank.row, bank.activated_at) {
                if n - a > self.t.ras_max {
                    return self.fail(
                        "tRAS max",
                        format!("bank {b} open for {} clocks, at most {}", n - a, self.t.ras_max),
                    );
                }
            }
        }
        if let Some(r) = self.ready_at {
            let due = (n - r) / self.t.refi.max(1);
            if due > self.refreshes_since_ready + 8 {
                return self.fail(
                    "refresh interval",
                    format!(
                        "{due} AUTO REFRESH due since initialisation (one per {} clocks), {} issued: more than 8 postponed",
                        self.t.refi, self.refreshes_since_ready
                    ),
                );
            }
        }
        // The burst in progress: a new READ/WRITE, BURST TERMINATE or a PRECHARGE of its bank
        // ends it at this edge; else its word for this edge moves.
        if let Some(b) = self.burst {
            let ends = match cmd {
                SdramCmd::Read { .. } | SdramCmd::Write { .. } | SdramCmd::BurstTerminate => true,
                SdramCmd::Precharge { bank, all } => all || bank == b.bank,
                _ => false,
            };
            if ends || n >= b.start + u64::from(b.len) {
                self.burst = None;
            } else {
                self.burst_word(b, n, pins)?;
            }
        }
        match cmd {
            SdramCmd::Inhibit | SdramCmd::Nop | SdramCmd::BurstTerminate => {}
            SdramCmd::LoadMode { mode } => {
                self.all_idle("LOAD MODE REGISTER")?;
                self.precharge_done("LOAD MODE REGISTER")?;
                let m = match SdramMode::parse(mode, self.part.columns) {
                    Ok(m) => m,
                    Err(e) => return self.fail("unsupported", format!("LOAD MODE REGISTER {mode:#x}: {e}")),
                };
                let max = if m.cas_latency == 2 {
                    self.part.timings.max_hz_cl2
                } else {
                    self.part.timings.max_hz_cl3
                };
                if self.clock_hz > max {
                    return self.fail(
                        "tCK",
                        format!(
                            "CAS latency {} at {:.1} MHz: the part allows at most {:.1} MHz",
                            m.cas_latency,
                            self.clock_hz / 1e6,
                            max / 1e6
                        ),
                    );
                }
                self.mode = Some(m);
                self.mode_loaded_at = Some(n);
                if self.ready_at.is_none() && self.precharged_all && self.init_refreshes >= 2 {
                    self.ready_at = Some(n);
                }
            }
            SdramCmd::Refresh => {
                self.all_idle("AUTO REFRESH")?;
                self.precharge_done("AUTO REFRESH")?;
                self.last_refresh = Some(n);
                self.stats.refreshes += 1;
                if self.ready_at.is_some() {
                    self.refreshes_since_ready += 1;
                } else if self.precharged_all {
                    self.init_refreshes += 1;
                }
            }
            SdramCmd::Precharge { bank, all } => {
                let which: Vec<usize> = if all {
                    (0..self.banks.len()).collect()
                } else {
                    vec![bank as usize]
                };
                for &b in &which {
                    let bk = self.banks[b];
                    if bk.row.is_some() {
                        if let Some(a) = bk.activated_at {
                            if n - a < self.t.ras {
                                return self.fail(
                                    "tRAS",
                                    format!(
                                        "PRECHARGE of bank {b} {} clocks after its ACTIVE, {} needed",
                                        n - a,
                                        self.t.ras
                                    ),
                                );
                            }
                        }
                        if n < bk.write_recovered_at {
                            return self.fail(
                                "tWR",
                                format!(
                                    "PRECHARGE of bank {b} {} clocks after its last write data, {} needed",
                                    n + self.t.wr - bk.write_recovered_at,
                                    self.t.wr
                                ),
                            );
                        }
                    }
                }
                for &b in &which {
                    self.banks[b].precharged_at = Some(n);
                    self.banks[b].row = None;
                }
                if all {
                    self.precharged_all = true;
                }
                self.stats.precharges += 1;
            }
            SdramCmd::Active { bank, row } => {
                self.ready("ACTIVE")?;
                let b = bank as usize;
                let bk = self.banks[b];
                if let Some(open) = bk.row {
                    return self.fail("bank state", format!("ACTIVE to bank {b}, whose row {open} is open"));
                }
                if u32::from(row) >= self.part.rows {
                    return self.fail("address", format!("row {row} of {}", self.part.rows));
                }
                let what = format!("ACTIVE to bank {b}");
                self.check_gap("tRP", &what, "its PRECHARGE", bk.precharged_at, self.t.rp)?;
                self.check_gap("tRC", &what, "its last ACTIVE", bk.activated_at, self.t.rc)?;
                self.check_gap("tRRD", &what, "the last ACTIVE", self.last_activate, self.t.rrd)?;
                self.banks[b].row = Some(u32::from(row));
                self.banks[b].activated_at = Some(n);
                self.last_activate = Some(n);
                self.stats.activates += 1;
            }
            SdramCmd::Read {
                bank,
                column,
                auto_precharge,
            }
            | SdramCmd::Write {
                bank,
                column,
                auto_precharge,
                ..
            } => {
                let write = matches!(cmd, SdramCmd::Write { .. });
                let name = cmd.name();
                self.ready(name)?;
                let b = bank as usize;
                let bk = self.banks[b];
                let Some(row) = bk.row else {
                    return self.fail("bank state", format!("{name} to bank {b}, which has no open row"));
                };
                if auto_precharge {
                    return self.fail("unsupported", format!("{name} with auto precharge (A10)"));
                }
                if u32::from(column) >= self.part.columns {
                    return self.fail("address", format!("column {column} of {}", self.part.columns));
                }
                self.check_gap(
                    "tRCD",
                    &format!("{name} to bank {b}"),
                    "its ACTIVE",
                    bk.activated_at,
                    self.t.rcd,
                )?;
                let mode = self.mode.expect("ready implies a mode");
                let len = if write && mode.single_writes { 1 } else { mode.burst };
                let burst = Burst {
                    write,
                    bank,
                    row,
                    column: u32::from(column),
                    start: n,
                    len,
                };
                if write {
                    self.stats.writes += 1;
                } else {
                    self.stats.reads += 1;
                }
                self.burst_word(burst, n, pins)?;
                self.burst = (len > 1).then_some(burst);
            }
        }
        Ok(())
    }

    /// The burst's word at edge `n`: a write takes dq (DQM-masked lanes kept), a read fetches
    /// the word into the read pipeline, driven CL − 1 edges later.
    fn burst_word(&mut self, b: Burst, n: u64, pins: &SdramPins) -> Result<(), SdramViolation> {
        let i = (n - b.start) as u32;
        let block = b.len.max(1);
        let column = (b.column & !(block - 1)) | ((b.column + i) & (block - 1));
        let column = column % self.part.columns;
        let idx = self.index(u32::from(b.bank), b.row, column);
        if b.write {
            if !pins.dq_oe {
                return self.fail(
                    "dq contention",
                    format!("write data word {i} of bank {}: dq not driven", b.bank),
                );
            }
            let old = self.words.get(&idx).copied().unwrap_or(0);
            let mut w = old;
            if pins.dqm & 1 == 0 {
                w = (w & 0xff00) | (pins.dq_out & 0x00ff);
            }
            if pins.dqm & 2 == 0 {
                w = (w & 0x00ff) | (pins.dq_out & 0xff00);
            }
            self.words.insert(idx, w);
            self.banks[b.bank as usize].write_recovered_at = n + self.t.wr;
            self.stats.write_words += 1;
        } else {
            let cl = u64::from(self.mode.map_or(2, |m| m.cas_latency));
            let w = self.words.get(&idx).copied().unwrap_or(0);
            self.read_pipe.push_back((n + cl - 1, w));
            self.stats.read_words += 1;
        }
        Ok(())
    }

    fn ready(&self, what: &str) -> Result<(), SdramViolation> {
        if self.ready_at.is_none() {
            return self.fail(
                "init",
                format!("{what} before initialisation (PRECHARGE ALL, 2 AUTO REFRESH, LOAD MODE REGISTER)"),
            );
        }
        Ok(())
    }

    fn all_idle(&self, what: &str) -> Result<(), SdramViolation> {
        if let Some((b, bank)) = self.banks.iter().enumerate().find(|(_, b)| b.row.is_some()) {
            return self.fail(
                "bank state",
                format!("{what} with bank {b}'s row {} open", bank.row.unwrap()),
            );
        }
        Ok(())
    }

    fn precharge_done(&self, what: &str) -> Result<(), SdramViolation> {
        for (b, bank) in self.banks.iter().enumerate() {
            self.check_gap(
                "tRP",
                what,
                &format!("bank {b}'s PRECHARGE"),
                bank.precharged_at,
                self.t.rp,
            )?;
        }
        Ok(())
    }
}

/// A legal command schedule from power-up to ready, at the datasheet's minimum gaps: NOPs for
/// the power-up wait, PRECHARGE ALL, two AUTO REFRESH tRFC apart, LOAD MODE REGISTER, then
/// NOPs for tMRD. The reference the controller's initialisation is checked against.
pub fn init_schedule(t: &SdramClocks, mode: SdramMode) -> Vec<SdramCmd> {
    let mut s = vec![SdramCmd::Nop; t.init as usize];
    let pad =
        |s: &mut Vec<SdramCmd>, n: u64| s.extend(std::iter::repeat_n(SdramCmd::Nop, n.saturating_sub(1) as usize));
    s.push(SdramCmd::Precharge { bank: 0, all: true });
    pad(&mut s, t.rp);
    s.push(SdramCmd::Refresh);
    pad(&mut s, t.rfc);
    s.push(SdramCmd::Refresh);
    pad(&mut s, t.rfc);
    s.push(SdramCmd::LoadMode { mode: mode.bits() });
    pad(&mut s, t.mrd);
    s
}
