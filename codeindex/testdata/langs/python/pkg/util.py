def double(x):
    def inner(y):
        return y * 2
    return inner(x)
