fn main() {
    println!("api");
}
