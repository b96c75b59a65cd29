import TimbreCore
