//! A long series kept as a uniform sample: every value until `MOST`, then
//! every other one (the kept ones halved, later ones taken one in two), then
//! one in four, and so on. Each kept value stands for the same number of
//! values, early or late, so a sample of an hour reads as the hour did.

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sampled<T, const MOST: usize> {
    values: Vec<T>,
    /// One value in `stride` is kept (0 before the first: 1).
    stride: u64,
    seen: u64,
}

impl<T, const MOST: usize> Sampled<T, MOST> {
    pub fn push(&mut self, value: T) {
        let stride = self.stride.max(1);
        if self.seen % stride == 0 {
            self.values.push(value);
        }
        self.seen += 1;
        if self.values.len() > MOST {
            let mut index = 0;
            self.values.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.stride = stride * 2;
        }
    }
}

impl<T, const MOST: usize> From<Vec<T>> for Sampled<T, MOST> {
    fn from(values: Vec<T>) -> Self {
        Sampled { seen: values.len() as u64, values, stride: 1 }
    }
}

impl<T, const MOST: usize> std::ops::Deref for Sampled<T, MOST> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.values
    }
}
