pub fn total(xs: &[i32]) -> i32 {
    xs.iter().fold(0, |acc, x| core_lib::add(acc, *x))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sums() {
        assert_eq!(super::total(&[1, 2, 3]), 6);
    }
}
