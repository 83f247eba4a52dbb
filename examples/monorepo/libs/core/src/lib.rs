pub fn core() {}
