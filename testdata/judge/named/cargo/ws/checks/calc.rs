use calc::add;

#[test]
fn adds_zero() {
    assert_eq!(add(0, 0), 0);
}

#[test]
fn adds_zero_on_the_right() {
    assert_eq!(add(5, 0), 5);
}

#[test]
fn adds_two_and_two() {
    assert_eq!(add(2, 2), 4);
}
