pub mod script_bench;
pub mod smoke;
pub mod world_check;
