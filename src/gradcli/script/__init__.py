"""Running a program: the interpreter, a script's values, its built-ins, the graph recorder
and the hints added to errors."""
