<?php
namespace Acme\Util;

class Helpers
{
    public static function twice(float $x): float
    {
        return $x * 2;
    }
}
