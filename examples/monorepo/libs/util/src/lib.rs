pub fn util() {}
