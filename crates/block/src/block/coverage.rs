//! Functional coverage of the block's corners, counted in the model.
//!
//! Counting is off unless [`super::CapfcTop::enable_coverage`] is called; it observes the registers
//! and the inputs at the start of each cycle and never changes the model's behaviour.

use serde::Serialize;

macro_rules! points {
    ($($name:ident => $text:literal,)*) => {
        /// A corner of the contract.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(usize)]
        pub enum Point { $($name,)* }

        impl Point {
            pub const ALL: &'static [Point] = &[$(Point::$name,)*];
            pub fn describe(self) -> &'static str {
                match self { $(Point::$name => $text,)* }
            }
            pub fn name(self) -> &'static str {
                match self { $(Point::$name => stringify!($name),)* }
            }
        }
    };
}

points! {
    EgAtWarn => "egress occupancy lands exactly on WARN after an enqueue",
    EgAtXoff => "egress occupancy lands exactly on XOFF (no sort yet)",
    EgOverXoff => "enqueue above XOFF requests a sort",
    EgDeqAtWarn => "dequeue lands exactly on WARN (counters cleared)",
    EgDeqAtXon => "dequeue lands exactly on XON (E cleared)",
    EgFitExact => "enqueue with B + s == MAX accepted",
    EgReject => "enqueue rejected at egress MAX",
    EgDeqEnqSameQueue => "a dequeue and an accepted enqueue of one egress queue in one cycle (both banks written)",
    IngFitExact => "arrival with B_in + s == MAX accepted",
    IngReject => "arrival lost at ingress MAX",
    IngXoffSet => "ingress I set",
    IngDepAtXon => "departure lands exactly on ingress XON",
    IngDepArrSameQueue => "a departure and an accepted arrival of one ingress queue in one cycle (both banks written)",
    CntSaturated => "increment of a saturated counter",
    ClearAndIncSameCycle => "a row cleared and incremented in the same cycle",
    ClearDuringWrite => "a row cleared while its increment is in stage 2",
    FwdCounter => "back-to-back increments of one counter (stage 2 forwards the word)",
    RowBackToBack => "back-to-back increments of one row, other words (the second sees the first's valid bit)",
    SortReadFwd => "a sort engine reads the word written in the same cycle (forwarded)",
    TieBroken => "a counter equal to the winner passed over for a lower index",
    SortMaxDone => "Stop-Max sort finished",
    SortCalDone => "Stop-Calibrate sort finished",
    CutMinStep => "Stop-Calibrate sort with CUT at its smallest step",
    CutOne => "Stop-Calibrate sort with CUT = 1.0",
    PendingMany => "two or more sort requests pending at once in one port",
    EnginesMany => "two or more sort engines busy at once",
    PendingAllLossless => "every counted row of a port has a sort pending at once",
    TrigDuringOwnSort => "a row requests a sort while its own sort runs",
    SortCancelled => "sort aborted: its row was cleared while it ran",
    PendingDropped => "pending request dropped: its row was cleared",
    FrameXoff => "PFC frame pausing a class taken by the MAC",
    FrameXon => "PFC frame resuming a class taken by the MAC",
    FrameRefresh => "PFC refresh frame (D stayed up until the timer expired)",
    MacBusy => "a PFC frame pending while the MAC is not ready",
    FrameMerged => "a PFC frame taken that resumes one class and pauses another (changes merged)",
    ResetWithTraffic => "reset while packets are queued",
    SatReadBySort => "a sort engine reads a saturated counter",
    CalExactTarget => "Stop-Calibrate: the sum reaches the target exactly (S*2^F == CUT*T)",
    Mode3Sort => "a Stop-Calibrate sort loaded with mode register 3 (acts as 2)",
    ModeOffOverXoff => "an enqueue above XOFF_e with mode 0 (PFC only: no sort requested)",
    CfgUnknownAddr => "a write to an address that holds no register (ignored)",
    CfgOverwide => "a register write with bits above the register's width (dropped)",
    SizeZero => "an accepted packet of size 0",
}

/// Hit counts per point.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub hits: Vec<u64>,
}

impl Coverage {
    pub fn new() -> Self {
        Coverage {
            hits: vec![0; Point::ALL.len()],
        }
    }

    #[inline]
    pub fn hit(&mut self, p: Point) {
        self.hits[p as usize] += 1;
    }

    pub fn count(&self, p: Point) -> u64 {
        self.hits[p as usize]
    }

    pub fn merge(&mut self, o: &Coverage) {
        for (a, b) in self.hits.iter_mut().zip(&o.hits) {
            *a += b;
        }
    }

    /// The points never hit.
    pub fn missed(&self) -> Vec<Point> {
        Point::ALL
            .iter()
            .copied()
            .filter(|&p| self.count(p) == 0)
            .collect()
    }

    /// One line per point: hits, name, what it means.
    pub fn report(&self) -> String {
        let mut s = String::from("functional coverage (counted in the model):\n");
        for &p in Point::ALL {
            let n = self.count(p);
            s += &format!(
                "  {:>10}  {:<20} {}{}\n",
                n,
                p.name(),
                p.describe(),
                if n == 0 { "   <-- not hit" } else { "" }
            );
        }
        let hit = Point::ALL.len() - self.missed().len();
        s += &format!("  {hit}/{} points hit\n", Point::ALL.len());
        s
    }

    pub fn to_json(&self) -> serde_json::Value {
        #[derive(Serialize)]
        struct Row {
            point: &'static str,
            hits: u64,
        }
        let rows: Vec<Row> = Point::ALL
            .iter()
            .map(|&p| Row {
                point: p.name(),
                hits: self.count(p),
            })
            .collect();
        serde_json::to_value(rows).unwrap()
    }
}
