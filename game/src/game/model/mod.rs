pub mod character;
pub mod chat_rooms;
pub mod kit;
pub mod tables;
pub mod targeting;
pub mod turn_slots;
pub mod world;
