def add(a, b):
    return a + b


def sub(a, b):
    return a - b


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        if self is other:
            return True
        return (self.a, self.b) == (other.a, other.b)


if __name__ == "__main__":
    import sys
    sys.exit(0 if add(2, 3) == 5 else 1)
