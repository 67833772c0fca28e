# Source: https://cs231n.github.io/python-numpy-tutorial/ (the Numpy sections: arrays, indexing, datatypes, array math, broadcasting)
import numpy as np

a = np.array([1, 2, 3])   # Create a rank 1 array
print(type(a))            # Prints "<class 'numpy.ndarray'>"
print(a.shape)            # Prints "(3,)"
print(a[0], a[1], a[2])   # Prints "1 2 3"
a[0] = 5                  # Change an element of the array
print(a)                  # Prints "[5, 2, 3]"

b = np.array([[1,2,3],[4,5,6]])    # Create a rank 2 array
print(b.shape)                     # Prints "(2, 3)"
print(b[0, 0], b[0, 1], b[1, 0])   # Prints "1 2 4"

print(np.zeros((2,2)), np.ones((1,2)), np.full((2,2), 7), np.eye(2))

a = np.array([[1,2,3,4], [5,6,7,8], [9,10,11,12]])
b = a[:2, 1:3]
print(a[0, 1])   # Prints "2"
b[0, 0] = 77     # b[0, 0] is the same piece of data as a[0, 1]
print(a[0, 1])   # Prints "77"
row_r1 = a[1, :]    # Rank 1 view of the second row of a
row_r2 = a[1:2, :]  # Rank 2 view of the second row of a
print(row_r1, row_r1.shape)  # Prints "[5 6 7 8] (4,)"
print(row_r2, row_r2.shape)  # Prints "[[5 6 7 8]] (1, 4)"

a = np.array([[1,2], [3, 4], [5, 6]])
print(a[[0, 1, 2], [0, 1, 0]])  # Prints "[1 4 5]"
bool_idx = (a > 2)
print(bool_idx)
print(a[a > 2])     # Prints "[3 4 5 6]"

x = np.array([1, 2], dtype=np.int64)   # Force a particular datatype
print(np.array([1.0, 2.0]).dtype, x.dtype)

x = np.array([[1,2],[3,4]], dtype=np.float64)
y = np.array([[5,6],[7,8]], dtype=np.float64)
print(x + y, np.subtract(x, y), x * y, np.divide(x, y), np.sqrt(x))
v = np.array([9,10])
w = np.array([11, 12])
print(v.dot(w), np.dot(v, w), x.dot(v), np.dot(x, y))
print(np.sum(x), np.sum(x, axis=0), np.sum(x, axis=1), x.T)

x = np.array([[1,2,3], [4,5,6], [7,8,9], [10, 11, 12]])
v = np.array([1, 0, 1])
y = np.empty_like(x)   # Create an empty matrix with the same shape as x
for i in range(4):
    y[i, :] = x[i, :] + v
print(y)
vv = np.tile(v, (4, 1))   # Stack 4 copies of v on top of each other
print(vv, x + vv, x + v)
v = np.array([1,2,3])  # v has shape (3,)
w = np.array([4,5])    # w has shape (2,)
print(np.reshape(v, (3, 1)) * w)
x = np.array([[1,2,3], [4,5,6]])
print(x + v, (x.T + w).T, x + np.reshape(w, (2, 1)), x * 2)
