const std = @import("std");
const util = @import("util.zig");

const Square = struct {
    side: f64,

    pub fn area(self: Square) f64 {
        return util.twice(self.side) * self.half();
    }

    fn half(self: Square) f64 {
        _ = self;
        return 0.5;
    }
};

pub fn main() void {
    const s = Square{ .side = 2 };
    std.debug.print("{d}\n", .{s.area()});
}
