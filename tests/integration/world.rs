//! A tiny CircleMUD-format world for black-box tests: every fight has a known outcome.
//!
//! 8004 temple (peaceful) — east: training yard (a 1-hp dummy worth 3000 exp, a sword)
//!                        — west: death pit (an aggressive fiend that kills in a round)
//!                        — south: sparring ring (a 1-damage partner with 500 hp, a key)
//!                        — north: a vault behind a locked door (the key opens it)
//! East of the yard, a treasury holds two 1-hp golden idols (one kill takes a new
//! character to level 11) and a mage guild master.
//! The yard leads north to a house (its floor survives restarts) kept by an innkeeper.
//! The sparring ring hides a secret door east to a cellar, where a merchant (always
//! open) sells cloth bags and buys containers and weapons.
//! East of the treasury, a lair: a level-20 dragon asleep with 1 hp, and a grizzly bear
//! that always hits for exactly 1 (memory tests walk an agent down to near-death).

pub const WLD: &str = "#8004
The Test Temple~
A plain temple for tests. The fire burns.
~
90 e 0
D0
A heavy door.
~
door~
1 9050 8007
D1
~
~
0 -1 8005
D2
~
~
0 -1 8008
D3
~
~
0 -1 8006
S
#8005
The Training Yard~
Straw and sand.
~
90 0 1
D0
~
~
0 -1 8010
D1
~
~
0 -1 8011
D3
~
~
0 -1 8004
S
#8011
The Treasury~
Golden idols worth a fortune in experience, and a mage who teaches.
~
90 0 0
D1
~
~
0 -1 8012
D3
~
~
0 -1 8005
S
#8012
The Dragon's Lair~
Scorched stone. Something large sleeps here.
~
90 0 0
D3
~
~
0 -1 8011
S
#8006
The Death Pit~
Bones everywhere.
~
90 0 1
D1
~
~
0 -1 8004
S
#8007
The Vault~
An empty vault.
~
90 d 0
D2
~
~
1 9050 8004
S
#8008
The Sparring Ring~
A ring of rope.
~
90 0 1
D0
~
~
0 -1 8004
D1
~
panel~
17 -1 8009
S
#8010
The Test House~
A house whose floor keeps what is dropped on it. An innkeeper dozes here.
~
90 l 0
D2
~
~
0 -1 8005
S
#8009
The Hidden Cellar~
A cellar behind a panel.
~
90 0 0
D3
~
panel~
1 -1 8008
S
$~
";

pub const MOB: &str = "#9001
dummy straw~
a straw dummy~
A straw dummy stands here.
~
A dummy stuffed with straw.
~
bd 0 0 S
1 20 10 1d1+0 1d1+0
5 3000
8 8 0
#9002
fiend pit~
a pit fiend~
A pit fiend glares at you.
~
Huge.
~
bdf 0 0 S
30 0 -10 10d10+1000 20d10+200
0 1
8 8 1
#9004
merchant shopkeeper~
a merchant~
A merchant counts coins.
~
Thrifty.
~
b 0 0 S
10 10 0 10d10+100 1d4+0
500 0
8 8 1
#9005
innkeeper keeper~
the innkeeper~
The innkeeper polishes a mug.
~
Friendly.
~
b 0 0 S
10 10 0 10d10+100 1d4+0
0 0
8 8 1
#9006
idol golden~
a golden idol~
A golden idol stands here.
~
Worth a fortune.
~
bd 0 0 S
1 20 10 1d1+0 1d1+0
0 200000
8 8 0
#9007
guildmaster mage eldon~
Eldon the guildmaster~
Eldon the mage guildmaster waits to teach.
~
Learned.
~
b 0 0 S
30 0 -10 10d10+1000 1d4+0
0 0
8 8 1
#9008
dragon sleeping~
a sleeping dragon~
A sleeping dragon snores here.
~
Ancient, and fast asleep.
~
bd 0 0 S
20 20 10 1d1+0 1d1+0
0 100
8 8 0
#9009
bear grizzly~
a grizzly bear~
A grizzly bear watches you.
~
Patient and strong.
~
bd 0 0 S
1 -20 10 1d1+5000 1d1+0
0 10
8 8 0
#9003
partner sparring~
a sparring partner~
A sparring partner bounces on his toes.
~
Patient.
~
bd 0 0 S
1 20 10 1d1+500 1d1+0
0 10
8 8 1
$
";

pub const OBJ: &str = "#9050
key brass~
a brass key~
A brass key lies here.~
~
18 0 ao
0 0 0 0
1 10 1
#9051
sword~
a test sword~
A test sword lies here.~
~
5 0 an
0 1 8 3
4 100 10
#9052
bag~
a cloth bag~
A cloth bag lies here.~
~
15 0 a
20 0 -1 0
1 5 1
#9053
bread loaf~
a loaf of bread~
A loaf of bread lies here.~
~
19 0 a
5 0 0 0
1 2 1
#9054
fountain~
a stone fountain~
A stone fountain bubbles here.~
~
23 0 0
0 0 0 0
1000 0 0
#9055
waterskin skin~
a waterskin~
A waterskin lies here.~
~
17 0 a
10 0 0 0
1 3 1
$
";

pub const ZON: &str = "#90
The Test Arena~
9099 1 2
M 0 9001 1 8005
M 0 9002 1 8006
M 0 9003 1 8008
M 0 9004 1 8009
M 0 9005 1 8010
M 0 9006 2 8011
M 0 9006 2 8011
M 0 9007 1 8011
M 0 9008 1 8012
M 0 9009 1 8012
O 0 9051 1 8005
O 0 9052 1 8005
O 0 9050 1 8008
O 0 9053 1 8008
O 0 9054 1 8008
O 0 9055 1 8008
D 0 8004 0 2
D 0 8008 1 1
S
$
";

pub const SHP: &str = "CircleMUD v3.0 Shop File~
#9000~
9052
-1
1.2
0.5
15
5
-1
%s I have no such thing.~
%s You don't have that.~
%s I don't buy that.~
%s I can't afford it!~
%s You can't afford it!~
%s That is %d coins.~
%s Here, %d coins.~
0
0
9004
0
8009
-1
0
28
0
0
$~
";

/// The world's own socials: one new, one replacing a shipped one.
pub const SOCIALS: &str = "salute 0 5
You salute smartly.
$n salutes smartly.
You salute $M.
$n salutes $N.
$n salutes you.
Salute whom?
You salute yourself.
$n salutes $mself.

wave 0 5
You wave like a test.
$n waves like a test.
#
#
#
#
#
#

$
";

pub fn write(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join("misc")).unwrap();
    std::fs::write(dir.join("misc/socials"), SOCIALS).unwrap();
    for (kind, name, text) in
        [("wld", "t.wld", WLD), ("mob", "t.mob", MOB), ("obj", "t.obj", OBJ), ("zon", "t.zon", ZON), ("shp", "t.shp", SHP)]
    {
        let d = dir.join(kind);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(name), text).unwrap();
        std::fs::write(d.join("index"), format!("{name}\n$\n")).unwrap();
    }
}
